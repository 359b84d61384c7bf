import type { RunRecord } from "../records/agent-record.js";
import type { StopReason } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";

/** A turn's run record as its first commit stores it. */
export function newRun(id: string, agentId: string, key: string | null, nowMs: number): RunRecord {
  return {
    id,
    agent_id: agentId,
    status: "running",
    stop_reason: null,
    idempotency_key: key,
    created_at_ms: nowMs,
    completed_at_ms: null,
    usage: null,
    verification: null,
    models: [],
  };
}

const FAILED: ReadonlySet<StopReason> = new Set([
  "error",
  "llm_api_error",
  "invalid_llm_response",
  "context_window_overflow_in_system_prompt",
]);

/** A run waiting for approval is still running: the approval continues it. */
export function endRun(
  run: RunRecord,
  stopReason: StopReason,
  nowMs: number,
  state: SessionState,
): RunRecord {
  const { usage, verification: v, models } = state;
  if (stopReason === "requires_approval") return { ...run, stop_reason: stopReason, usage, models };
  const status =
    stopReason === "cancelled" ? "cancelled" : FAILED.has(stopReason) ? "failed" : "completed";
  const verification =
    v && v.passed !== null ? { passed: v.passed, rounds: v.rounds, findings: v.findings } : null;
  return {
    ...run,
    status,
    stop_reason: stopReason,
    completed_at_ms: nowMs,
    usage,
    verification,
    models,
  };
}
