import type { Clock } from "../core/clock.js";
import type { IdSource } from "../core/ids.js";
import type { ModelAdapter } from "../llm/model.js";
import { StagedMemory } from "../memory/staged-memory.js";
import type { RunRecord } from "../records/agent-record.js";
import type { ClientTool } from "../records/client-tool.js";
import type { AgentMessage, ApprovalDecision, StopReason } from "../records/messages.js";
import type { JournalEntry } from "../records/run-journal.js";
import type { Usage } from "../records/session-state.js";
import { beginTurnState, type NewTurn, type SessionState } from "../records/session-state.js";
import type { MessageSearch, PassageSearch, TurnStore } from "../storage/turn-store.js";
import {
  safeToRerun,
  type ToolImplementation,
  type ToolResult,
  type Workspace,
} from "../tools/tool.js";
import { closePending } from "./apply.js";
import { applyApprovalDecisions, expireApprovals } from "./approvals.js";
import { applyChildResults, type ChildSpawner } from "./children.js";
import { nextStep } from "./decide.js";
import type { LoopEvent } from "./events.js";
import { checkCall } from "./execute-tool.js";
import type { HistoryWindow } from "./history-window.js";
import type { LoopConfig } from "./loop-config.js";
import { conversationStamp, type MessageStamp, stampMessage } from "./message-factory.js";
import type { LoopObserver } from "./observer.js";
import { journaled, performStep } from "./perform-step.js";
import { recallFor } from "./recall.js";
import { endRun, newRun } from "./run-record.js";
import { sessionForTurn } from "./session-end.js";
import { type Performed, stepChanges } from "./step-log.js";

/** The agent as one turn needs it. */
export interface TurnAgent {
  readonly id: string;
  readonly systemPrompt: string;
  readonly config: LoopConfig;
  /** The model sees only history after this message (a context reset); all of it if absent. */
  readonly contextAfter?: string | undefined;
}

/** Everything a turn does I/O through. Tests and simulations pass their own. */
export interface LoopDeps {
  readonly model: ModelAdapter;
  readonly tools: ReadonlyMap<string, ToolImplementation>;
  readonly store: TurnStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly workspace: Workspace;
  readonly onEvent?: (event: LoopEvent) => void;
  /**
   * Whether anyone follows the turn's token deltas now; without it, deltas go to `onEvent`
   * whenever it is set. Messages, stops and usage always go to `onEvent`.
   */
  readonly streaming?: () => boolean;
  /** Aborting it cancels the turn at the next step boundary, or the model call in flight. */
  readonly signal?: AbortSignal;
  /** How many stored messages a model call may see at most, before the context window trims. */
  readonly historyLimit?: number;
  /** The agent's newest messages in memory; without it, history is read from the store. */
  readonly history?: HistoryWindow;
  readonly maxOutputTokens?: number;
  /** Starts sub-agents; without it, spawn calls are refused. */
  readonly children?: ChildSpawner;
  /** Told of model calls, tool calls, commits and turns (metrics, traces); none by default. */
  readonly observer?: LoopObserver;
}

export interface TurnResult {
  state: SessionState;
  /** The messages this call produced, in order. */
  messages: AgentMessage[];
  stopReason: StopReason;
  usage: Usage;
}

/** What a running turn holds besides its checkpoint. */
export interface TurnContext {
  readonly agent: TurnAgent;
  readonly deps: LoopDeps;
  readonly memory: StagedMemory;
  readonly produced: AgentMessage[];
  /** The turn's run, once known; a turn that started here need not read it back to end it. */
  run: RunRecord | null;
}

/** Starts a turn with a user message and runs it until it stops. */
export async function sendUserMessage(
  agent: TurnAgent,
  state: SessionState,
  input: NewTurn & { content: string; otid?: string | null },
  deps: LoopDeps,
): Promise<TurnResult> {
  const body = { message_type: "user_message" as const, content: input.content };
  const turn = { ...input, conversationId: input.conversationId ?? null };
  return startTurn(agent, state, body, input.otid ?? null, deps, turn);
}

/** Applies a human's approval decisions to a waiting session and runs the turn on. */
export async function submitApprovals(
  agent: TurnAgent,
  state: SessionState,
  decisions: readonly ApprovalDecision[],
  deps: LoopDeps,
  clientTools?: readonly ClientTool[],
): Promise<TurnResult> {
  const ctx = await openTurn(agent, deps);
  const stamp: MessageStamp = {
    runId: state.run_id,
    stepId: state.step_id,
    nowMs: deps.clock.now(),
  };
  const applied = applyApprovalDecisions(state, decisions, stamp, agent.config, clientTools);
  const entry = { kind: "approvals" as const, decisions: [...decisions], client_tools: null };
  const journal = [{ ...entry, ...(clientTools && { client_tools: [...clientTools] }) }];
  return runUntilStop(ctx, await commit(ctx, { ...applied, journal }));
}

/**
 * Carries a session on from its checkpoint: a running turn resumes at its next step (after a
 * crash, say); an approval that expired is denied and the turn runs on.
 */
export async function resumeSession(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<TurnResult> {
  if (state.phase === "awaiting_approval") {
    const expired = expireApprovals(state, deps.clock.now());
    if (expired.length > 0) return submitApprovals(agent, state, expired, deps);
  }
  const ctx = await openTurn(agent, deps);
  if (state.phase !== "running") return result(ctx, state);
  return runUntilStop(ctx, state);
}

/**
 * Records what sub-agents answered to the calls that waited for them. Once no call waits any
 * more, the turn runs on; until then it keeps sleeping in `awaiting_children`.
 */
export async function deliverChildResults(
  agent: TurnAgent,
  state: SessionState,
  results: readonly { index: number; result: ToolResult }[],
  deps: LoopDeps,
): Promise<TurnResult> {
  const ctx = await openTurn(agent, deps);
  const stamp = { runId: state.run_id, stepId: state.step_id, nowMs: deps.clock.now() };
  const applied = applyChildResults(state, results, stamp, agent.config);
  const answers = results.map(({ index, result: { status, output } }) => ({
    index,
    status,
    output,
  }));
  const next = await commit(ctx, { ...applied, journal: [{ kind: "children", results: answers }] });
  return next.phase === "awaiting_children" ? result(ctx, next) : runUntilStop(ctx, next);
}

/** Ends a sleeping turn (waiting for children or an approval) as cancelled. */
export async function cancelTurn(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<TurnResult> {
  const ctx = await openTurn(agent, deps);
  if (state.phase === "idle" || state.phase === "paused") return result(ctx, state);
  const stamp = { runId: state.run_id, stepId: state.step_id, nowMs: deps.clock.now() };
  const closed = closePending(
    { state: { ...state, phase: "running" }, messages: [] },
    "cancelled",
    stamp,
  );
  return finish(ctx, { ...closed, journal: [{ kind: "cancel" }] }, "cancelled");
}

/** Wakes a paused memgpt-style agent: a heartbeat starts a new turn. */
export async function wakeFromPause(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<TurnResult> {
  const body = {
    message_type: "system_message" as const,
    content: "Heartbeat: your pause is over. Continue if there is anything to do.",
  };
  return startTurn(agent, state, body, null, deps);
}

/** A new turn: its run and its first message are committed before anything else happens. */
async function startTurn(
  agent: TurnAgent,
  state: SessionState,
  body: { message_type: "user_message" | "system_message"; content: string },
  otid: string | null,
  deps: LoopDeps,
  chosen: NewTurn = {},
): Promise<TurnResult> {
  const ctx = await openTurn(agent, deps);
  const runId = chosen.runId ?? deps.ids.next("run");
  const session = await sessionForTurn(agent, state, deps);
  const started = {
    ...beginTurnState(session, runId, chosen.clientTools, chosen.conversationId),
    recall: await recallFor(
      ctx.memory,
      body.content,
      agent.config.capabilities.memory.recall_tokens,
      runId,
    ),
  };
  const stamp: MessageStamp = { runId, stepId: null, nowMs: deps.clock.now() };
  const first = stampMessage(stamp, deps.ids.next("message"), body, otid);
  const run = newRun(runId, agent.id, otid, stamp.nowMs);
  ctx.run = run;
  const begin: JournalEntry = {
    kind: "begin",
    approved_tools: started.approved_tools,
    client_tools: started.client_tools,
  };
  const opened = { state: started, messages: [first], journal: [begin] };
  return runUntilStop(ctx, await commit(ctx, opened, run));
}

async function openTurn(agent: TurnAgent, deps: LoopDeps): Promise<TurnContext> {
  const blocks = await deps.store.loadBlocks(agent.id);
  const search = {
    searchPassages: (query: string, options: PassageSearch) =>
      deps.store.searchPassages(agent.id, query, options),
    searchMessages: (query: string, options: MessageSearch) =>
      deps.store.searchMessages(agent.id, query, options),
  };
  return {
    agent,
    deps,
    memory: new StagedMemory(blocks, search, deps.ids, deps.clock),
    produced: [],
    run: null,
  };
}

/** Runs the turn's steps until it stops, telling the observer when it starts and stops here. */
async function runUntilStop(ctx: TurnContext, initial: SessionState): Promise<TurnResult> {
  const { observer, clock } = ctx.deps;
  if (!observer) return runSteps(ctx, initial);
  const agentId = ctx.agent.id;
  observer.turnStarted({ agentId, runId: initial.run_id, atMs: clock.now() });
  try {
    const done = await runSteps(ctx, initial);
    const asleep = done.state.phase === "awaiting_children";
    const outcome = asleep ? ("awaiting_children" as const) : done.stopReason;
    const { usage } = done.state;
    observer.turnEnded({ agentId, runId: done.state.run_id, atMs: clock.now(), outcome, usage });
    return done;
  } catch (error) {
    const { usage } = initial;
    observer.turnEnded({
      agentId,
      runId: initial.run_id,
      atMs: clock.now(),
      outcome: "failed",
      usage,
    });
    throw error;
  }
}

async function runSteps(ctx: TurnContext, initial: SessionState): Promise<TurnResult> {
  let state = initial;
  for (;;) {
    if (ctx.deps.signal?.aborted) {
      const stamp = { runId: state.run_id, stepId: state.step_id, nowMs: ctx.deps.clock.now() };
      const closed = closePending({ state, messages: [] }, "cancelled", stamp);
      state = await commit(ctx, { ...closed, journal: [{ kind: "cancel" }] });
    }
    const step = nextStep(state, ctx.agent.config);
    if (step.kind === "finish") return finish(ctx, { state, messages: [] }, step.stopReason);
    if (step.kind === "await_children") {
      // The turn sleeps; the engine wakes it with the children's answers (deliverChildResults).
      const asleep = await commit(ctx, {
        state: { ...state, phase: "awaiting_children" },
        messages: [],
      });
      // Cancelled meanwhile: no child has its task yet, so the turn ends here instead.
      if (!ctx.deps.signal?.aborted) return result(ctx, asleep);
      state = { ...asleep, phase: "running" };
      continue;
    }
    if (step.kind === "run_tool") state = await markStartedIfUnsafe(ctx, state, step.index);
    // Journaled here, not in performStep: an extra await there would move the DST's schedules.
    const applied = journaled(await performStep(ctx, state, step), step);
    // A step that ends the turn is committed together with the turn's end: one write, not two.
    const after = nextStep(applied.state, ctx.agent.config);
    if (after.kind === "finish" && !ctx.deps.signal?.aborted)
      return finish(ctx, applied, after.stopReason);
    state = await commit(ctx, applied);
  }
}

/**
 * Commits a call as started before it runs when running it again after a crash would repeat
 * an effect: a resumed turn then finds it started and tells the model its outcome is unknown.
 */
async function markStartedIfUnsafe(
  ctx: TurnContext,
  state: SessionState,
  index: number,
): Promise<SessionState> {
  const call = state.pending[index];
  const tool = call ? ctx.deps.tools.get(call.tool_call.name) : undefined;
  if (!call || !tool || safeToRerun(tool)) return state;
  if (!checkCall(call, state, ctx.agent.config.capabilities, ctx.deps.tools).ok) return state;
  const pending = state.pending.map((p, i) =>
    i === index ? { ...p, status: "started" as const } : p,
  );
  const marked = await commit(ctx, {
    state: { ...state, pending },
    messages: [],
    journal: [{ kind: "started", index }],
  });
  // The mark stops a repeat after a crash: it must survive power loss before the effect (030).
  if (ctx.deps.store.flush) await ctx.deps.store.flush();
  return marked;
}

/**
 * Commits a step with the memory it changed, the run (if it changed) and the step records it
 * changed, then reports it. `stopReason` marks the commit that ends the turn.
 */
async function commit(
  ctx: TurnContext,
  applied: Performed,
  run?: RunRecord,
  stopReason?: StopReason,
): Promise<SessionState> {
  // Each message gets its place in the run, so a client can re-attach after the last it saw.
  const seq = applied.state.run_seq;
  const stamp = conversationStamp(applied.state.conversation_id);
  const messages = applied.messages.map((m, i) => ({ ...m, ...stamp, seq_id: seq + i + 1 }));
  const state = { ...applied.state, run_seq: seq + messages.length };
  const { steps, stepUpdates } = stepChanges(applied, messages, stopReason);
  const { clock, observer } = ctx.deps;
  const startedAtMs = observer ? clock.now() : 0;
  await ctx.deps.store.commit({
    agentId: ctx.agent.id,
    state,
    messages,
    memory: ctx.memory.drain(),
    ...(run ? { run } : {}),
    ...(steps.length > 0 ? { steps } : {}),
    ...(stepUpdates.length > 0 ? { stepUpdates } : {}),
    ...(applied.journal ? { journal: applied.journal } : {}),
  });
  observer?.committed({ agentId: ctx.agent.id, durationMs: clock.now() - startedAtMs });
  ctx.deps.history?.append(messages);
  for (const message of messages) {
    ctx.produced.push(message);
    ctx.deps.onEvent?.({ type: "message", message });
  }
  return state;
}

async function finish(
  ctx: TurnContext,
  last: Performed,
  stopReason: StopReason,
): Promise<TurnResult> {
  const { state } = last;
  const phase: SessionState["phase"] =
    stopReason === "requires_approval"
      ? "awaiting_approval"
      : state.pause_until_ms !== null
        ? "paused"
        : "idle";
  const known = ctx.run?.id === state.run_id ? ctx.run : null;
  const run = known ?? (state.run_id ? await ctx.deps.store.getRun(state.run_id) : null);
  const journal = [...(last.journal ?? []), { kind: "finish" as const, stop_reason: stopReason }];
  const ended = await commit(
    ctx,
    {
      ...last,
      state: { ...state, phase, stop_reason: stopReason, last_active_ms: ctx.deps.clock.now() },
      journal,
    },
    run ? endRun(run, stopReason, ctx.deps.clock.now(), state) : undefined,
    stopReason,
  );
  ctx.deps.onEvent?.({ type: "stop", stop_reason: stopReason });
  ctx.deps.onEvent?.({ type: "usage", usage: ended.usage });
  return result(ctx, ended);
}

function result(ctx: TurnContext, state: SessionState): TurnResult {
  return {
    state,
    messages: ctx.produced,
    stopReason: state.stop_reason ?? "end_turn",
    usage: state.usage,
  };
}
