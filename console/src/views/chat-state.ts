import type { Message, ToolCall } from "../types.js";

/** Kinds whose streamed frames are pieces of one message (token streaming) to join. */
const DELTAS = new Set(["assistant_message", "reasoning_message"]);

/**
 * Folds one streamed frame into the chat: a frame with the id and kind of a message already
 * shown extends it (a token delta) or replaces it; any other frame is a new message.
 */
export function mergeFrame(messages: Message[], frame: Message): Message[] {
  const at = messages.findLastIndex(
    (m) => m.id === frame.id && m.message_type === frame.message_type,
  );
  if (at === -1) return [...messages, frame];
  const old = messages[at] as Message;
  const merged: Message = !DELTAS.has(frame.message_type)
    ? frame
    : frame.message_type === "reasoning_message"
      ? { ...old, reasoning: (old.reasoning ?? "") + (frame.reasoning ?? "") }
      : { ...old, content: textOf(old.content) + textOf(frame.content) };
  return [...messages.slice(0, at), merged, ...messages.slice(at + 1)];
}

function textOf(content: unknown): string {
  return typeof content === "string" ? content : "";
}

/** The tool calls an approval request asks about. */
export function callsOf(message: Message): ToolCall[] {
  return message.tool_calls ?? (message.tool_call ? [message.tool_call] : []);
}
