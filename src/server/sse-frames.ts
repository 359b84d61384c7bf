import type { LoopEvent } from "../agent/events.js";
import type { AgentMessage } from "../records/messages.js";
import { lettaMessages, otidOf } from "../service/letta-views.js";
import { INPUT_TYPES, usageView } from "../service/message-service.js";

/** One SSE frame: `data:` JSON, and an `event:` name only for errors (Letta's framing). */
export interface Frame {
  event?: "error";
  data: string;
}

/**
 * Turns loop events into Letta's SSE frames as they happen. Without token streaming each
 * message is one chunk; with it, assistant and reasoning text arrive as deltas that repeat
 * their message's id, and the complete message is not sent again.
 */
export class FrameMapper {
  readonly #streamedIds = new Set<string>();
  #error: { message: string; retryable: boolean } | null = null;

  constructor(
    private readonly streamTokens: boolean,
    /** Only these message types are sent (Letta's `include_return_message_types`). */
    private readonly only: readonly string[] | null = null,
  ) {}

  frames(event: LoopEvent & { from?: string }): Frame[] {
    switch (event.type) {
      case "delta":
        return this.#delta(event);
      case "message":
        return this.#message(event.message, event.from);
      case "stop":
        return [this.#json({ message_type: "stop_reason", stop_reason: event.stop_reason })];
      case "usage": {
        const frames = [this.#json(usageView(event.usage))];
        if (this.#error)
          frames.push(
            errorFrame(this.#error.message, this.#error.retryable ? "llm_retryable" : "llm_error"),
          );
        return frames;
      }
      case "error":
        this.#error = { message: event.message, retryable: event.retryable };
        return [];
      // Letta's stream has no frame for it; the run's `models` and the event stream say it.
      case "model_fallback":
      case "model_queued":
      case "compaction":
        return [];
    }
  }

  #delta(event: Extract<LoopEvent, { type: "delta" }>): Frame[] {
    if (!this.streamTokens || event.message_type === "tool_call_message") return [];
    if (this.only && !this.only.includes(event.message_type)) return [];
    this.#streamedIds.add(event.id);
    const date = new Date().toISOString();
    // The same otid the stored message shows: deltas are of messages the server makes.
    const head = { id: event.id, date, otid: otidOf({ id: event.id, otid: null }) };
    const body =
      event.message_type === "assistant_message"
        ? { ...head, message_type: "assistant_message", content: event.text }
        : { ...head, message_type: "reasoning_message", reasoning: event.text };
    return [this.#json(body)];
  }

  /** A message; one relayed from a sub-agent (an approval it waits for) names that agent. */
  #message(message: AgentMessage, from?: string): Frame[] {
    // The caller's own input (its message, its answer to approvals) is not echoed, as in Letta.
    if (INPUT_TYPES.has(message.message_type) || this.#streamedIds.has(message.id)) return [];
    return lettaMessages([message])
      .filter((shown) => !this.only || this.only.includes(shown.message_type))
      .map((shown) => this.#json(from ? { ...shown, agent_id: from } : shown));
  }

  #json(value: unknown): Frame {
    return { data: JSON.stringify(value) };
  }
}

/** Letta's error frame: the client throws with its `message`. */
export function errorFrame(message: string, errorType = "internal_error"): Frame {
  return {
    event: "error",
    data: JSON.stringify({
      message_type: "error_message",
      error_type: errorType,
      message,
      detail: message,
    }),
  };
}
