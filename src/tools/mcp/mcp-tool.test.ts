import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpToolImplementation, mcpToolRisk, resultOf } from "./mcp-tool.js";

const tool = (annotations?: McpTool["annotations"]): McpTool => ({
  name: "t",
  inputSchema: {
    type: "object",
    properties: { n: { type: "integer", minimum: 1 } },
    required: ["n"],
  },
  ...(annotations ? { annotations } : {}),
});

describe("MCP tools as Holdfast tools", () => {
  it("takes the risk class from the annotations, pessimistic where they are silent", () => {
    expect(mcpToolRisk(tool({ readOnlyHint: true }))).toBe("read");
    expect(mcpToolRisk(tool())).toBe("network");
    expect(mcpToolRisk(tool({ openWorldHint: false }))).toBe("exec");
    expect(mcpToolRisk(tool({ openWorldHint: false, destructiveHint: false }))).toBe("write");
    expect(mcpToolRisk(tool({ readOnlyHint: true }), "exec")).toBe("exec");
  });

  it("is idempotent only when the server says so", () => {
    const options = {
      name: "t",
      risk: "read" as const,
      source: "mcp:x",
      timeoutMs: 1_000,
      call: async () => ({ content: [] }),
    };
    expect(mcpToolImplementation(tool(), options).idempotent).toBe(false);
    expect(mcpToolImplementation(tool({ idempotentHint: true }), options).idempotent).toBe(true);
  });

  it("keeps the JSON Schema for the model and checks arguments against it", () => {
    const options = {
      name: "t",
      risk: "read" as const,
      source: "mcp:x",
      timeoutMs: 1_000,
      call: async () => ({ content: [] }),
    };
    const { declaration } = mcpToolImplementation(tool(), options);
    expect(declaration.jsonSchema).toEqual(tool().inputSchema);
    expect(declaration.parameters.safeParse({ n: 2, extra: true }).data).toEqual({
      n: 2,
      extra: true,
    });
    const bad = declaration.parameters.safeParse({ n: 0 });
    expect(bad.error?.issues[0]?.path).toEqual(["n"]);
  });

  it("gives the model text, and the server's own errors as tool errors", () => {
    expect(
      resultOf({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({
      status: "success",
      output: "a\nb",
    });
    expect(resultOf({ content: [{ type: "text", text: "no such file" }], isError: true })).toEqual({
      status: "error",
      output: "no such file",
    });
    expect(resultOf({ content: [], structuredContent: { x: 1 } }).output).toBe('{"x":1}');
  });
});
