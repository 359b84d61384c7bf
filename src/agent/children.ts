import type { SessionState } from "../records/session-state.js";
import type { Applied } from "./apply.js";

/** What one spawn call asks for: a sub-agent of `agentType` on `prompt`. */
export interface SpawnRequest {
  /** The parent's run and the call: the child's id is derived from them, so never made twice. */
  readonly runId: string;
  readonly toolCallId: string;
  readonly agentType: string;
  readonly prompt: string;
}

export type SpawnOutcome = { ok: true; childId: string } | { ok: false; error: string };

/**
 * Makes sub-agents for a turn. The engine implements it: a child is a real agent with its own
 * mailbox, and its task is delivered after the parent's checkpoint records the wait, so the
 * parent holds nothing in memory while its children run.
 */
export interface ChildSpawner {
  spawn(request: SpawnRequest): Promise<SpawnOutcome>;
}

/** Call `index` now waits for the sub-agent `childId`. */
export function applySpawned(state: SessionState, index: number, childId: string): Applied {
  const pending = state.pending.map((call, i) =>
    i === index ? { ...call, status: "awaiting_child" as const, child_agent_id: childId } : call,
  );
  return { state: { ...state, pending }, messages: [] };
}

/** The sub-agents the session waits for, by call index. */
export function awaitedChildren(state: SessionState): { index: number; childId: string }[] {
  return state.pending.flatMap((call, index) =>
    call.status === "awaiting_child" && call.child_agent_id
      ? [{ index, childId: call.child_agent_id }]
      : [],
  );
}
