import type { ModelDelta } from "../llm/model.js";
import { stepMessageId } from "./message-factory.js";
import type { TurnContext } from "./run-turn.js";

/** Passes a model call's deltas on as loop events, while anyone follows the turn's tokens. */
export function streamDeltas(
  ctx: TurnContext,
  stepId: string,
): ((delta: ModelDelta) => void) | undefined {
  const emit = ctx.deps.onEvent;
  if (!emit || ctx.deps.streaming?.() === false) return undefined;
  const replyVia = ctx.agent.config.capabilities.reply_via;
  return (delta) => {
    if (delta.type === "tool_call") {
      emit({
        type: "delta",
        id: stepMessageId(stepId, `c${delta.index}`),
        message_type: "tool_call_message",
        text: delta.argumentsDelta,
        ...(delta.name ? { name: delta.name } : {}),
      });
    } else if (delta.type === "reasoning" || replyVia === "send_message") {
      // A memgpt agent's text is its inner voice; its reply comes through send_message.
      const slot = delta.type === "reasoning" ? "r" : "t";
      emit({
        type: "delta",
        id: stepMessageId(stepId, slot),
        message_type: "reasoning_message",
        text: delta.text,
      });
    } else {
      emit({
        type: "delta",
        id: stepMessageId(stepId, "a"),
        message_type: "assistant_message",
        text: delta.text,
      });
    }
  };
}
