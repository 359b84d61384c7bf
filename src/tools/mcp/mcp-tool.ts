import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { argumentCheck } from "../argument-schema.js";
import { failure, success, type ToolImplementation, type ToolResult } from "../tool.js";
import type { RiskClass, ToolDeclaration } from "../tool-declaration.js";
import { ToolName } from "../tool-declaration.js";

/**
 * The risk class of an MCP tool, from its annotations, which MCP defines as hints with
 * pessimistic defaults (a tool that says nothing may be destructive and reach the open world):
 * - `readOnlyHint: true` → `read`;
 * - otherwise `openWorldHint` not `false` → `network` (it acts on systems outside Holdfast);
 * - otherwise `destructiveHint` not `false` → `exec` (it may destroy local state, so only
 *   `full` access offers it);
 * - otherwise → `write`.
 * A server's `risk:` in config replaces all of this for its tools.
 */
export function mcpToolRisk(tool: McpTool, fixed?: RiskClass): RiskClass {
  if (fixed) return fixed;
  const hints = tool.annotations ?? {};
  if (hints.readOnlyHint === true) return "read";
  if (hints.openWorldHint !== false) return "network";
  if (hints.destructiveHint !== false) return "exec";
  return "write";
}

/** How a source runs a tool call on its server; throws with a readable message on failure. */
export type CallMcpTool = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<CallToolResult>;

export interface McpToolOptions {
  /** The name the agent sees (the server's name with the server's `tool_prefix`). */
  name: string;
  risk: RiskClass;
  /** The pack of the tool's server, `mcp:NAME`. */
  source: string;
  timeoutMs: number;
  call: CallMcpTool;
}

/**
 * An MCP tool as a Holdfast tool. The model sees the server's JSON Schema unchanged; the same
 * schema checks the arguments before the call (`argumentCheck`: Ajv, patterns under RE2), so a
 * bad call is an error naming the field, and never reaches the server. A schema that check
 * refuses (one it cannot compile, a `$ref` loop, a pattern RE2 does not take) is left to the
 * server to check.
 */
export function mcpToolImplementation(tool: McpTool, options: McpToolOptions): ToolImplementation {
  const declaration: ToolDeclaration = {
    name: ToolName.parse(options.name),
    description: tool.description ?? tool.title ?? tool.name,
    parameters: argumentsChecker(tool.inputSchema),
    jsonSchema: { ...tool.inputSchema },
    risk: options.risk,
    source: options.source,
  };
  return {
    declaration,
    idempotent: tool.annotations?.idempotentHint === true,
    // Its effects are on the server's side, outside any Holdfast commit.
    stagedEffects: false,
    timeoutMs: options.timeoutMs,
    run: async (args, context) =>
      resultOf(await options.call(tool.name, args as Record<string, unknown>, context.signal)),
  };
}

/** An object schema that passes the arguments through unchanged once the JSON Schema accepts them. */
function argumentsChecker(schema: McpTool["inputSchema"]): z.ZodObject {
  const checked = argumentCheck(schema);
  return z.looseObject({}).superRefine((value, ctx) => {
    for (const problem of checked.ok ? checked.check(value) : []) {
      ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
    }
  });
}

/** The text the model reads: text content as is, other content described, `isError` kept. */
export function resultOf(result: CallToolResult): ToolResult {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case "text":
        return part.text;
      case "resource":
        return "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      case "resource_link":
        return `[resource ${part.uri}]`;
      default:
        return `[${part.type} content, ${part.mimeType}]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const output = parts.join("\n");
  return result.isError ? failure(output || "the tool reported an error") : success(output);
}
