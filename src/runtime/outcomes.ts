import type { TurnAgent, TurnResult } from "../agent/run-turn.js";
import { ConflictError } from "../core/errors.js";
import type { StopReason } from "../records/messages.js";
import type { Store } from "../storage/store.js";
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
