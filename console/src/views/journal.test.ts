import { describe, expect, it } from "vitest";
import type { Message } from "../types.js";
import { exchanges, type JournalEntry, newInputs } from "./journal.js";

const response = (text: string, calls: string[] = []) => ({
  text,
  reasoning: "thinking",
  toolCalls: calls.map((name, i) => ({ id: `c${i}`, name, arguments: "{}" })),
  finishReason: calls.length ? "tool_calls" : "stop",
});

describe("a run's journal, by step", () => {
  it("keeps each model step's offer and response, and the decisions after it", () => {
    const entries: JournalEntry[] = [
      { kind: "begin" },
      {
        kind: "step",
        step: { kind: "call_model" },
        input: {
          type: "model",
          step_id: "s1",
          offered: ["a", "b"],
          tool_choice: "auto",
          response: response("", ["a"]),
        },
      },
      {
        kind: "step",
        step: { kind: "run_tool", index: 0 },
        input: { type: "tool", result: { status: "success", output: "ok", executed: true } },
      },
      {
        kind: "step",
        step: { kind: "call_model" },
        input: {
          type: "model_failed",
          step_id: "s2",
          offered: [],
          tool_choice: "auto",
          stop_reason: "llm_api_error",
        },
      },
      { kind: "finish", stop_reason: "llm_api_error" },
    ];
    const byStep = exchanges(entries);
    expect(byStep.get("s1")).toMatchObject({
      offered: ["a", "b"],
      toolChoice: "auto",
      failed: null,
      after: ["run tool call 0 → success"],
    });
    expect(byStep.get("s1")?.response?.toolCalls[0]?.name).toBe("a");
    expect(byStep.get("s2")).toMatchObject({ response: null, failed: "llm_api_error", after: [] });
  });

  it("gives each step the messages that arrived since the previous model call", () => {
    const m = (id: string, message_type: string, step_id: string | null) =>
      ({ id, message_type, step_id }) as Message;
    const inputs = newInputs([
      m("u", "user_message", null),
      m("r", "reasoning_message", "s1"),
      m("t", "tool_call_message", "s1"),
      m("ret", "tool_return_message", "s1"),
      m("a", "assistant_message", "s2"),
    ]);
    expect(inputs.get("s1")?.map((x) => x.id)).toEqual(["u"]);
    expect(inputs.get("s2")?.map((x) => x.id)).toEqual(["ret"]);
  });
});
