import { describe, expect, it } from "vitest";
import type { Message, Step } from "../types.js";
import { groups, NO_STEP } from "./timeline.js";

const message = (id: string, step_id: string | null, message_type = "assistant_message") =>
  ({ id, step_id, message_type }) as Message;

describe("a run's timeline", () => {
  const messages = [
    message("m0", null, "user_message"),
    message("m1", "step-a", "tool_call_message"),
    message("m2", "step-a", "tool_return_message"),
    message("m3", "step-b"),
  ];

  it("groups the messages by step, the input first, when the server keeps no step records", () => {
    const shown = groups({ messages, steps: null });
    expect(shown.map((g) => [g.id, g.index, g.messages.map((m) => m.id)])).toEqual([
      [NO_STEP, 0, ["m0"]],
      ["step-a", 1, ["m1", "m2"]],
      ["step-b", 2, ["m3"]],
    ]);
  });

  it("follows Letta's step records, keeping a step that produced no message", () => {
    const steps: Step[] = [
      { id: "step-a", model_handle: "sim/demo", prompt_tokens: 10, completion_tokens: 2 },
      { id: "step-x", status: "failed", error_type: "llm_api_error" },
      { id: "step-b", model_handle: "sim/demo" },
    ];
    const shown = groups({ messages, steps });
    expect(shown.map((g) => [g.id, g.index, g.step?.id, g.messages.length])).toEqual([
      [NO_STEP, 0, undefined, 1],
      ["step-a", 1, "step-a", 2],
      ["step-x", 2, "step-x", 0],
      ["step-b", 3, "step-b", 1],
    ]);
  });
});
