import { describe, expect, it } from "vitest";
import type { Message } from "../types.js";
import { callsOf, mergeFrame } from "./chat-state.js";

const frame = (fields: Partial<Message>) =>
  ({ id: "m1", message_type: "assistant_message", ...fields }) as Message;

describe("the chat's streamed frames", () => {
  it("joins token deltas of one message, and keeps other messages apart", () => {
    let shown: Message[] = [];
    for (const content of ["Noted. ", "I will ", "remember."])
      shown = mergeFrame(shown, frame({ content }));
    shown = mergeFrame(
      shown,
      frame({ id: "m2", message_type: "reasoning_message", reasoning: "a" }),
    );
    shown = mergeFrame(
      shown,
      frame({ id: "m2", message_type: "reasoning_message", reasoning: "b" }),
    );
    expect(shown.map((m) => [m.id, m.content ?? m.reasoning])).toEqual([
      ["m1", "Noted. I will remember."],
      ["m2", "ab"],
    ]);
  });

  it("replaces a repeated tool message rather than doubling it", () => {
    const call = { name: "memory_insert", arguments: "{}", tool_call_id: "c1" };
    let shown = mergeFrame([], frame({ message_type: "tool_call_message", tool_call: call }));
    shown = mergeFrame(shown, frame({ message_type: "tool_call_message", tool_call: call }));
    expect(shown).toHaveLength(1);
    expect(callsOf(shown[0] as Message)).toEqual([call]);
  });
});
