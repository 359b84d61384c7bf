import { describe, expect, it } from "vitest";
import type { FieldError } from "../core/errors.js";
import { sequentialIds } from "../core/ids.js";
import { AgentFileMessage } from "../records/agent-file.js";
import type { AgentMessage } from "../records/messages.js";
import { fromFileMessage, toFileMessage } from "./agent-file-messages.js";

const base = { date: "2026-01-02T03:04:05.000Z", run_id: null, step_id: null, otid: "o-1" };
const call = { name: "memory_insert", arguments: '{"label":"human"}', tool_call_id: "call-1" };

const HISTORY: AgentMessage[] = [
  { ...base, id: "m1", message_type: "system_message", content: "a notice" },
  { ...base, id: "m2", message_type: "user_message", content: "hi" },
  { ...base, id: "m3", message_type: "reasoning_message", reasoning: "think", signature: "sig" },
  { ...base, id: "m4", message_type: "tool_call_message", tool_call: call },
  {
    ...base,
    id: "m5",
    message_type: "tool_return_message",
    name: "memory_insert",
    tool_call_id: "call-1",
    tool_return: "done",
    status: "error",
  },
  { ...base, id: "m6", message_type: "approval_request_message", tool_call: call },
  {
    ...base,
    id: "m7",
    message_type: "approval_response_message",
    approvals: [
      { tool_call_id: "call-1", approve: false, reason: "no" },
      { type: "tool", tool_call_id: "call-2", tool_return: "42", status: "success" },
    ],
  },
  { ...base, id: "m8", message_type: "assistant_message", content: "bye" },
];

describe("agent file messages", () => {
  it("gives every message type back unchanged but for its id after a round trip", () => {
    const ids = sequentialIds();
    const errors: FieldError[] = [];
    const back = HISTORY.flatMap((message, i) => {
      const written = JSON.parse(JSON.stringify(toFileMessage(message, `message-${i}`, "agent-0")));
      return fromFileMessage(AgentFileMessage.parse(written), `messages.${i}`, ids, errors);
    });
    expect(errors).toEqual([]);
    const withoutIds = (messages: AgentMessage[]) => messages.map(({ id: _, ...rest }) => rest);
    expect(withoutIds(back)).toEqual(withoutIds(HISTORY));
    expect(back.map((m) => m.id)).toEqual(
      HISTORY.map((_, i) => `message-${String(i + 1).padStart(8, "0")}`),
    );
  });

  it("reads Letta's assistant text beside tool calls as reasoning, then the calls", () => {
    const message = AgentFileMessage.parse({
      id: "message-1",
      role: "assistant",
      content: [{ type: "text", text: "I should reply." }],
      tool_calls: [
        { id: "c1", type: "function", function: { name: "send_message", arguments: "{}" } },
      ],
    });
    const out = fromFileMessage(message, "m", sequentialIds(), []);
    expect(out.map((m) => m.message_type)).toEqual(["reasoning_message", "tool_call_message"]);
  });

  it("reports a content part it cannot keep and a bad date at their paths", () => {
    const errors: FieldError[] = [];
    const message = AgentFileMessage.parse({
      id: "message-1",
      role: "user",
      content: [{ type: "image", source: {} }],
      created_at: "yesterday",
    });
    fromFileMessage(message, "agents.0.messages.3", sequentialIds(), errors);
    expect(errors.map((e) => e.path).sort()).toEqual([
      "agents.0.messages.3.content.0.type",
      "agents.0.messages.3.created_at",
    ]);
  });
});
