import type { StopReason } from "../records/messages.js";
import type { Usage } from "../records/session-state.js";

/** One model call as it happened. Times are the loop clock's, in ms. */
export interface ModelCallSeen {
  agentId: string;
  runId: string | null;
  stepId: string;
  /** The handle that answered, or the agent's own when the call failed. */
  model: string;
  /** Handles that failed with an outage before `model` answered. */
  fallbacks: readonly string[];
  startedAtMs: number;
  endedAtMs: number;
  /** Of the call's time, how long it queued behind the provider's rate limits. */
  queueWaitMs: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  finishReason: string | null;
  /** Why it failed (a ModelError's kind, or `cancelled`); null when it answered. */
  error: { kind: string; message: string } | null;
}

/** One tool call the loop ran (refused, denied and client-run calls are not seen here). */
export interface ToolCallSeen {
  agentId: string;
  runId: string | null;
  stepId: string | null;
  tool: string;
  toolCallId: string;
  startedAtMs: number;
  endedAtMs: number;
  outcome: "success" | "error";
}

/**
 * What the loop reports as it runs, for metrics and traces (`LoopDeps.observer`). Calls are
 * made in order and synchronously; an observer must not throw, and must not keep the loop
 * waiting. Without one, the loop does no observation work at all.
 */
export interface LoopObserver {
  /** A turn starts running steps here (a new turn, a resumed one, one an approval continues). */
  turnStarted(seen: { agentId: string; runId: string | null; atMs: number }): void;
  modelCalled(seen: ModelCallSeen): void;
  toolCalled(seen: ToolCallSeen): void;
  /** A step's commit reached the store, taking `durationMs`. */
  committed(seen: { agentId: string; durationMs: number }): void;
  /**
   * The turn stops running here: it ended (`stopReason`), sleeps until its sub-agents answer
   * (`awaiting_children`), or failed part-way (`failed`: a store write failed, say).
   */
  turnEnded(seen: {
    agentId: string;
    runId: string | null;
    atMs: number;
    outcome: StopReason | "awaiting_children" | "failed";
    usage: Usage;
  }): void;
}
