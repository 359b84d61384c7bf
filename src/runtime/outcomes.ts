import type { TurnAgent, TurnResult } from "../agent/run-turn.js";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { StopReason } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { Store } from "../storage/store.js";
import type { AgentEvents } from "./agent-events.js";
import type { RunOutcome } from "./engine.js";
import { approvalsBelow } from "./sub-agents.js";

/** A new message while an approval waits: Letta's 409 PENDING_APPROVAL. */
export class PendingApprovalError extends ConflictError {
  override readonly code = "PENDING_APPROVAL";
  constructor(readonly pendingRequestIds: string[]) {
    super("an approval is pending: answer it before sending a new message");
  }
}

/** The outcome of a run that stopped in the job that ran it: what that job produced. */
export function finishedOutcome(result: TurnResult): RunOutcome {
  return {
    runId: result.state.run_id,
    duplicate: false,
    messages: result.messages,
    stopReason: result.stopReason,
    usage: result.usage,
    childApprovals: [],
    verification: verificationOf(result.state),
  };
}

function verificationOf(state: TurnResult["state"]): RunOutcome["verification"] {
  const v = state.verification;
  return v && v.passed !== null
    ? { passed: v.passed, rounds: v.rounds, findings: v.findings }
    : null;
}

const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, step_count: 0 };

/** The outcome of a run as stored: all its messages, how it stopped, what waits below it. */
export async function storedOutcome(
  store: Store,
  agentId: string,
  runId: string,
): Promise<RunOutcome> {
  const [run, messages, session] = await Promise.all([
    store.getRun(runId),
    store.listRunMessages(runId),
    store.loadSession(agentId),
  ]);
  const current = session?.run_id === runId ? session : null;
  const sleeping = current?.phase === "awaiting_children";
  const childApprovals = sleeping ? await approvalsBelow(store, agentId) : [];
  const stopReason: StopReason =
    childApprovals.length > 0
      ? "requires_approval"
      : ((current?.stop_reason ?? run?.stop_reason ?? "end_turn") as StopReason);
  return {
    runId,
    duplicate: false,
    messages,
    stopReason,
    usage: run?.usage ?? current?.usage ?? NO_USAGE,
    childApprovals,
    verification: run?.verification ?? null,
  };
}

/** The agent with its iteration limit lowered for one run; never raised past its type's. */
export function withMaxSteps(agent: TurnAgent, maxSteps: number | undefined): TurnAgent {
  const limits = agent.config.capabilities.limits;
  if (maxSteps === undefined || maxSteps >= limits.max_iterations) return agent;
  const capabilities = {
    ...agent.config.capabilities,
    limits: { ...limits, max_iterations: maxSteps },
  };
  return { ...agent, config: { ...agent.config, capabilities } };
}

/** Letta's 409 for a new message while an approval waits: the agent's own, or one below it. */
export async function refuseWhileApprovalPending(
  store: Store,
  agentId: string,
  state: SessionState,
): Promise<void> {
  if (state.phase === "awaiting_approval") {
    const waiting = state.pending.filter((c) => c.status === "awaiting_approval");
    throw new PendingApprovalError(waiting.map((c) => c.tool_call.tool_call_id));
  }
  if (state.phase === "awaiting_children") {
    const below = await approvalsBelow(store, agentId);
    if (below.length > 0) {
      throw new PendingApprovalError(below.map((a) => a.message.tool_call.tool_call_id));
    }
  }
}

/**
 * Whether run `runId` has stopped for its caller: it ended, or it waits for an approval (its
 * agent's own, or one below it). A NotFoundError if the agent has no such run.
 */
export async function stoppedForCaller(
  store: Store,
  agentId: string,
  runId: string,
): Promise<boolean> {
  const run = await store.getRun(runId);
  if (!run || run.agent_id !== agentId) throw new NotFoundError("run", runId);
  if (run.status !== "running") return true;
  const session = await store.loadSession(agentId);
  if (session?.run_id !== runId) return false;
  if (session.phase === "awaiting_approval") return true;
  return session.phase === "awaiting_children" && (await approvalsBelow(store, agentId)).length > 0;
}

/** The run's outcome once it has stopped for its caller: at once if it has, else at its stop. */
export async function awaitStoredRun(
  store: Store,
  events: AgentEvents,
  agentId: string,
  runId: string,
): Promise<RunOutcome> {
  const controller = new AbortController();
  const stop = events.nextStop(agentId, runId, controller.signal);
  try {
    if (!(await stoppedForCaller(store, agentId, runId))) await stop;
  } finally {
    controller.abort();
  }
  return storedOutcome(store, agentId, runId);
}
