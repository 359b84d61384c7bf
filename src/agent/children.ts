import type { SessionState } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import { type Applied, applyToolResult } from "./apply.js";
import type { LoopConfig } from "./loop-config.js";
import type { MessageStamp } from "./message-factory.js";
import { applyVerdict, VERDICT, verifierAtWork } from "./verify.js";

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

/**
 * Records what sub-agents answered: each call's tool return, or the verifier's verdict. The
 * session keeps sleeping while any child is still out, and runs on once none is.
 */
export function applyChildResults(
  state: SessionState,
  results: readonly { index: number; result: ToolResult }[],
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  let applied: Applied = { state, messages: [] };
  for (const { index, result } of results) {
    const open = index === VERDICT || applied.state.pending[index]?.status === "awaiting_child";
    if (!open) continue;
    const next =
      index === VERDICT
        ? applyVerdict(applied.state, result, stamp, config)
        : applyToolResult(applied.state, index, result, stamp, config, true);
    applied = { state: next.state, messages: [...applied.messages, ...next.messages] };
  }
  const waiting =
    applied.state.pending.some((call) => call.status === "awaiting_child") ||
    verifierAtWork(applied.state) !== null;
  const phase = waiting ? ("awaiting_children" as const) : ("running" as const);
  return { ...applied, state: { ...applied.state, phase } };
}
