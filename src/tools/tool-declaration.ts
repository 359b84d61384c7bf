import { z } from "zod";

/**
 * How much harm a tool can do, by its worst side effect:
 * - `read`: no side effects (reads local files, memory, or the web);
 * - `write`: changes state the agent owns (memory, files in its workspace);
 * - `exec`: runs arbitrary code or commands, or starts other agents;
 * - `network`: sends data to systems outside Holdfast (posts, emails, webhooks).
 */
export const RiskClass = z.enum(["read", "write", "exec", "network"]);
export type RiskClass = z.infer<typeof RiskClass>;

/**
 * A feature of the agent type that a tool needs; the tool is offered only when the type has it.
 * `heartbeat` tools need heartbeats on; memory tools need the matching memory switch.
 */
export const ToolRequirement = z.enum([
  "heartbeat",
  "core_memory",
  "archival_memory",
  "conversation_search",
]);
export type ToolRequirement = z.infer<typeof ToolRequirement>;

export const ToolName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, "a tool name is 1-64 letters, digits, _ or -");

/** The arguments of a tool: a zod object, from which the model's JSON Schema is derived. */
export type ToolParameters = z.ZodObject;

/** What a tool is, without how it runs: all that capabilities and model requests need. */
export interface ToolDeclaration<P extends ToolParameters = ToolParameters> {
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  /** `parameters` as JSON Schema, as model providers expect it. */
  readonly jsonSchema: Record<string, unknown>;
  readonly risk: RiskClass;
  readonly requires?: ToolRequirement | undefined;
  /** Where the tool comes from when not built in: the pack of its MCP server (`mcp:NAME`). */
  readonly source?: string | undefined;
}

/** Declares a tool; throws if the name is malformed (declarations are code, not input). */
export function defineTool<P extends ToolParameters>(declaration: {
  name: string;
  description: string;
  parameters: P;
  risk: RiskClass;
  requires?: ToolRequirement;
}): ToolDeclaration<P> {
  ToolName.parse(declaration.name);
  // Derived when a model request or a listing first needs it, not for every built-in tool at
  // start-up.
  let jsonSchema: Record<string, unknown> | undefined;
  return {
    ...declaration,
    get jsonSchema() {
      jsonSchema ??= modelSchema(declaration.parameters);
      return jsonSchema;
    },
  };
}

function modelSchema(parameters: ToolParameters): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(parameters, { io: "input" });
  return schema;
}
