import type { AgentMessage, StopReason } from "../records/messages.js";
import type { Usage } from "../records/session-state.js";

/**
 * What a running turn reports as it goes; the API puts these on SSE. A `message` event comes
 * once its step is committed; `delta`s stream before that and share the message's id.
 */
export type LoopEvent =
  | { type: "message"; message: AgentMessage }
  | {
      type: "delta";
      id: string;
      message_type: "assistant_message" | "reasoning_message" | "tool_call_message";
      text: string;
      /** For tool calls: the call's name, once known. */
      name?: string;
    }
  | { type: "stop"; stop_reason: StopReason }
  | { type: "usage"; usage: Usage }
  /** `kind`: the model failure's kind (ModelErrorKind), when a model call failed. */
  | { type: "error"; message: string; retryable: boolean; kind?: string }
  /**
   * A model call moved on from `from` (down: `kind`, `message`) to its next fallback handle;
   * `to` is the handle that finally answered the step.
   */
  | {
      type: "model_fallback";
      step_id: string;
      from: string;
      to: string;
      kind: string;
      message: string;
    }
  /**
   * The oldest messages were folded into the running summary (`folded`: how many it covers),
   * or summarising them failed (`message`) and the previous summary stayed.
   */
  | {
      type: "compaction";
      step_id: string;
      status: "summarised" | "failed";
      folded: number;
      message?: string;
    }
  /** A step's model call waited `wait_ms` in the provider's rate-limit queue before it went. */
  | { type: "model_queued"; step_id: string; model: string; wait_ms: number };
