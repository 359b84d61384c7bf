import { describe, expect, it } from "vitest";
import { contextWindowFor, toSdkMessages, toSdkTools } from "./ai-sdk-adapter.js";

describe("toSdkMessages", () => {
  it("turns assistant tool calls into parsed inputs and groups their results", () => {
    const messages = toSdkMessages([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "f", arguments: '{"x":1}' },
          { id: "b", name: "g", arguments: "" },
        ],
      },
      { role: "tool", toolCallId: "a", toolName: "f", content: "one" },
      { role: "tool", toolCallId: "b", toolName: "g", content: "two" },
    ]);
    expect(messages).toEqual([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "a", toolName: "f", input: { x: 1 } },
          { type: "tool-call", toolCallId: "b", toolName: "g", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "f",
            output: { type: "text", value: "one" },
          },
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "g",
            output: { type: "text", value: "two" },
          },
        ],
      },
    ]);
  });

  it("sends an empty object for arguments that were not JSON", () => {
    const [message] = toSdkMessages([
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "f", arguments: "{oops" }] },
    ]);
    expect(message).toMatchObject({ content: [{ type: "tool-call", input: {} }] });
  });

  it("drops an assistant turn with neither text nor tool calls", () => {
    expect(toSdkMessages([{ role: "assistant", content: "", toolCalls: [] }])).toEqual([]);
  });
});

describe("toSdkTools", () => {
  it("offers each tool's JSON Schema without an execute function", () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const tools = toSdkTools([{ name: "search", description: "Find", parameters: schema }]);
    expect(Object.keys(tools)).toEqual(["search"]);
    expect(tools.search?.description).toBe("Find");
    expect(tools.search && "execute" in tools.search).toBe(false);
  });
});

describe("contextWindowFor", () => {
  it("knows the big model families and defaults to 32k for the rest", () => {
    expect(contextWindowFor("gpt-4.1-mini")).toBe(1_047_576);
    expect(contextWindowFor("gpt-4o-2024-08-06")).toBe(128_000);
    expect(contextWindowFor("claude-sonnet-4-5")).toBe(200_000);
    expect(contextWindowFor("gemini-2.5-flash")).toBe(1_048_576);
    expect(contextWindowFor("openai/gpt-4o")).toBe(128_000);
    expect(contextWindowFor("llama3.2:3b")).toBe(32_768);
  });
});
