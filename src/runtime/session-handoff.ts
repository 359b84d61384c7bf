import type { IdSource } from "../core/ids.js";
import type { RunRecord } from "../records/agent-record.js";
import type { AgentMessage } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";

/** What the target of a handoff commits: the session under a run of its own, and context. */
export interface Handoff {
  state: SessionState;
  messages: AgentMessage[];
  run: RunRecord | undefined;
}

/** A message's id without the handoff suffixes (`message-x~agent-b` → `message-x`). */
const originOf = (id: string) => id.split("~")[0] ?? id;

/**
 * Prepares a session for another agent. The target gets its own run (runs belong to one
 * agent) and a fresh step id (message ids are unique across agents); the messages of the run
 * come along as context, each once: a message the target already has, from an earlier
 * handoff in the other direction, is not copied again. Copies carry no otid: idempotency
 * keys stay with the run they started.
 */
export function prepareHandoff(input: {
  state: SessionState;
  messages: readonly AgentMessage[];
  run: RunRecord | null;
  targetId: string;
  targetHas: readonly AgentMessage[];
  ids: IdSource;
}): Handoff {
  const { state, run, targetId, ids } = input;
  const runId = state.run_id === null ? null : ids.next("run");
  const present = new Set(input.targetHas.map((m) => originOf(m.id)));
  const messages = input.messages
    .filter((m) => !present.has(originOf(m.id)))
    .map((m) => ({ ...m, id: `${originOf(m.id)}~${targetId}`, run_id: runId, otid: null }));
  return {
    state: { ...state, run_id: runId, step_id: state.step_id === null ? null : ids.next("step") },
    messages,
    run:
      run && runId ? { ...run, id: runId, agent_id: targetId, idempotency_key: null } : undefined,
  };
}
