import { z } from "zod";
import { Usage } from "./agent-record.js";
import { ClientTool } from "./client-tool.js";
import { StopReason, ToolCall } from "./messages.js";

/**
 * The checkpoint of an agent's session: everything the loop needs to decide its next step
 * after a crash. Committed after every step with that step's messages.
 *
 * Versions: 1 — first version. 2 — sub-agents: the `awaiting_children` phase, calls waiting for
 * a child (`awaiting_child`, `child_agent_id`), `run_seq` (messages of the run so far) and
 * `verification` (the verifier gate); a version 1 row reads with their defaults. 3 — a call of a
 * tool that is not idempotent is `started` before it runs; earlier rows have no such calls.
 * 4 — client tools: `client_tools` (the run's tools its caller runs); older rows read with none.
 * 5 — fallbacks: `models` (the handles that answered this turn); older rows read with none.
 * 6 — memory depths and compaction (issue 13): `history_after`, `last_active_ms`, `summary`,
 * `recall` and `learning`; older rows read with none of them (all history, no summary).
 * 7 — conversations (decision 026): `conversation_id` (the run's conversation) and `summaries`
 * (the other conversations' summaries); older rows read with the default conversation only.
 * Readable versions: [1, 2, 3, 4, 5, 6, 7].
 */
export const SESSION_STATE_VERSION = 7;
export const READABLE_SESSION_VERSIONS: readonly number[] = [1, 2, 3, 4, 5, 6, 7];

/** The key of the agent's default conversation in `summaries` (its messages have no conversation). */
export const DEFAULT_CONVERSATION = "default";

export const PendingCall = z.object({
  tool_call: ToolCall,
  /**
   * pending → (awaiting_approval → approved | denied) → (awaiting_child →) done. A call is
   * `done` once its tool return is committed, so a resumed session never runs it again; a
   * spawn waits as `awaiting_child` until its sub-agent's run ends. A call of a tool that is not
   * idempotent is committed as `started` just before it runs: found `started` on resume, it
   * was in flight at a crash, and it is not run again (its outcome is unknown). A client tool's
   * call waits as `awaiting_approval`, and becomes `done` with the result its caller sends.
   */
  status: z.enum([
    "pending",
    "awaiting_approval",
    "approved",
    "denied",
    "started",
    "awaiting_child",
    "done",
  ]),
  /** The sub-agent a spawn call started (derived from the run and the call, so never twice). */
  child_agent_id: z.string().nullable().default(null),
  request_heartbeat: z.boolean(),
  denial_reason: z.string().nullable(),
  approval_expires_at_ms: z.number().nullable(),
  /** How the call ended, once done: what continuation after the tools depends on. */
  outcome: z.enum(["success", "error", "reply", "pause"]).nullable(),
});
export type PendingCall = z.infer<typeof PendingCall>;

export { Usage } from "./agent-record.js";

/** A verifier gate's rounds: each round a verifier sub-agent checks the answer. */
export const Verification = z.object({
  /** Rounds started (a round is one verifier run). */
  rounds: z.int().min(0),
  /** The verifier of the round in progress, or null between rounds. */
  verifier_agent_id: z.string().nullable(),
  /** What that verifier was asked (kept so a restart can give it the same task). */
  verifier_task: z.string().nullable(),
  passed: z.boolean().nullable(),
  /** What each failed round found, in order. */
  findings: z.array(z.string()),
  /** No more rounds: the outcome stands (a pass, the last fail, or no verifier could run). */
  final: z.boolean().default(false),
});
export type Verification = z.infer<typeof Verification>;

/**
 * The recursive summary of the oldest messages (Letta's summarising compaction): each new
 * summary folds in the one before. Committed with the step that made it, never recomputed.
 */
export const HistorySummary = z.object({
  text: z.string(),
  /** The newest message it covers: the context shows only the messages after it. */
  through_id: z.string().nullable(),
  /** How many messages the summaries have folded in so far. */
  folded: z.int().min(0),
  /** The last summarising that failed (the previous summary stayed), or null. */
  last_error: z.string().nullable().default(null),
  /** The run in which it failed: a turn tries once, not at every one of its model calls. */
  failed_in_run: z.string().nullable().default(null),
});
export type HistorySummary = z.infer<typeof HistorySummary>;

/** A `learning` agent's pending step: write what the session `session_id` taught it. */
export const PendingLearning = z.object({
  session_id: z.string(),
  /** The session's messages are those after `after_id` (null: from the first) up to `through_id`. */
  after_id: z.string().nullable(),
  through_id: z.string(),
});
export type PendingLearning = z.infer<typeof PendingLearning>;

export const SessionState = z.object({
  version: z.union([
    z.literal(1),
    z.literal(2),
    z.literal(3),
    z.literal(4),
    z.literal(5),
    z.literal(6),
    z.literal(SESSION_STATE_VERSION),
  ]),
  session_id: z.string(),
  /**
   * idle: between turns · running: a turn is in progress · awaiting_approval · paused ·
   * awaiting_children: the turn waits for the sub-agents it spawned, holding nothing in memory.
   */
  phase: z.enum(["idle", "running", "awaiting_approval", "paused", "awaiting_children"]),
  run_id: z.string().nullable(),
  /** Messages committed in this run so far: the next one's `seq_id` is one more. */
  run_seq: z.int().min(0).default(0),
  /** The verifier gate's progress this turn, when the type has one. */
  verification: Verification.nullable().default(null),
  /** The step of the last model call; its tool returns belong to it. */
  step_id: z.string().nullable(),
  /** Model calls made this turn. */
  iteration: z.int().min(0),
  /** Tool calls executed this turn, and per tool (for max_count_per_step). */
  tool_calls: z.int().min(0),
  counts: z.record(z.string(), z.int()),
  last_tool: z.string().nullable(),
  /** The tool calls of the last model response, in order. */
  pending: z.array(PendingCall),
  /** The tools the last model call was offered: calls are checked against these. */
  offered: z.array(z.string()),
  /** After the pending calls: call the model again, or end the turn with this reason. */
  after_tools: z.union([z.literal("continue"), StopReason]).nullable(),
  /** The final tool-less call at the iteration limit has been made. */
  forced_final: z.boolean(),
  pause_until_ms: z.number().nullable(),
  stop_reason: StopReason.nullable(),
  /** Tools approved for the rest of the session (per_session approval). */
  approved_tools: z.array(z.string()),
  /** The run's client tools: offered beside the agent's own, run by the caller, never here. */
  client_tools: z.array(ClientTool).default([]),
  usage: Usage,
  /** The model handles that answered this turn's calls, each once, in order of first answer. */
  models: z.array(z.string()).default([]),
  /** The newest message before this session began (null: it began with the agent). */
  history_after: z.string().nullable().default(null),
  /** When the last turn ended: a session idle for longer than its type allows ends. */
  last_active_ms: z.number().nullable().default(null),
  /** The summary of messages folded out of the context, or null while none were. */
  summary: HistorySummary.nullable().default(null),
  /** What `learning` recall put into this turn's context (kept so a resumed turn sees the same). */
  recall: z.string().nullable().default(null),
  /** A finished session whose lessons are still to be written to archival memory. */
  learning: PendingLearning.nullable().default(null),
  /** The conversation of the run in progress (or the last one); null: the default conversation. */
  conversation_id: z.string().nullable().default(null),
  /**
   * The summaries of the agent's other conversations, by conversation id (`default` for the
   * default one): `summary` is always the current conversation's, and a turn in another
   * conversation swaps them (`beginTurnState`).
   */
  summaries: z.record(z.string(), HistorySummary).default({}),
});
export type SessionState = z.infer<typeof SessionState>;

/** A new session, idle. */
export function newSessionState(sessionId: string): SessionState {
  return {
    version: SESSION_STATE_VERSION,
    session_id: sessionId,
    phase: "idle",
    run_id: null,
    run_seq: 0,
    verification: null,
    step_id: null,
    iteration: 0,
    tool_calls: 0,
    counts: {},
    last_tool: null,
    pending: [],
    offered: [],
    after_tools: null,
    forced_final: false,
    pause_until_ms: null,
    stop_reason: null,
    approved_tools: [],
    client_tools: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, step_count: 0 },
    models: [],
    history_after: null,
    last_active_ms: null,
    summary: null,
    recall: null,
    learning: null,
    conversation_id: null,
    summaries: {},
  };
}

/**
 * The state with `conversationId` as the current conversation: the summary of the one it
 * leaves is put away, and the summary of the one it enters taken out (decision 026).
 */
export function enterConversation(
  state: SessionState,
  conversationId: string | null,
): SessionState {
  if (state.conversation_id === conversationId) return state;
  const leaving = state.conversation_id ?? DEFAULT_CONVERSATION;
  const entering = conversationId ?? DEFAULT_CONVERSATION;
  const { [entering]: summary = null, ...rest } = state.summaries;
  const summaries = state.summary ? { ...rest, [leaving]: state.summary } : rest;
  return { ...state, conversation_id: conversationId, summary, summaries };
}

/** The summary of conversation `conversationId` (null: the default one), or null if none. */
export function summaryOf(
  state: SessionState,
  conversationId: string | null,
): HistorySummary | null {
  if (state.conversation_id === conversationId) return state.summary;
  return state.summaries[conversationId ?? DEFAULT_CONVERSATION] ?? null;
}

/**
 * What a new turn is given besides its first message: its run id, the run's client tools, and
 * its conversation (decision 026; absent: the conversation of the session's last run).
 */
export interface NewTurn {
  runId?: string | undefined;
  clientTools?: readonly ClientTool[];
  conversationId?: string | null;
}

/**
 * The state at the start of a turn: counters reset, session-wide approvals kept, and the
 * client tools of this run (those of an earlier run are gone).
 */
export function beginTurnState(
  state: SessionState,
  runId: string,
  clientTools: readonly ClientTool[] = [],
  conversationId: string | null = state.conversation_id,
): SessionState {
  const entered = enterConversation(state, conversationId);
  return {
    ...newSessionState(state.session_id),
    phase: "running",
    run_id: runId,
    approved_tools: state.approved_tools,
    client_tools: [...clientTools],
    // What belongs to the session, not the turn, carries on.
    history_after: state.history_after,
    last_active_ms: state.last_active_ms,
    summary: entered.summary,
    learning: state.learning,
    conversation_id: entered.conversation_id,
    summaries: entered.summaries,
  };
}

/**
 * The wake-ups a session needs, by timer kind: a paused session's end and the soonest expiry
 * of an approval it waits for; null where it needs none. Stores write them in the same
 * transaction as the checkpoint, so a session never waits without its wake-up.
 */
export function wakeUpsOf(state: SessionState): {
  wake: number | null;
  approval_expiry: number | null;
} {
  const expiries = state.pending.flatMap((call) =>
    call.status === "awaiting_approval" && call.approval_expires_at_ms !== null
      ? [call.approval_expires_at_ms]
      : [],
  );
  return {
    wake: state.phase === "paused" ? state.pause_until_ms : null,
    approval_expiry: expiries.length > 0 ? Math.min(...expiries) : null,
  };
}
