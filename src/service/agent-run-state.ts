import { awaitingApproval } from "../agent/approvals.js";
import type { AgentState } from "../records/agent-state.js";
import { StopReason } from "../records/messages.js";
import type { Store } from "../storage/store.js";
import { type LettaMessageView, lettaMessages } from "./letta-views.js";

/**
 * The fields of Letta's `AgentState` that come from the agent's runs, not its record: the stop
 * reason of its last ended run, and the approval request it waits on (with every waiting call
 * in `tool_calls`) when asked for with `include=agent.pending_approval` (letta/orm/agent.py).
 */
export type AgentRunState = Pick<AgentState, "last_stop_reason" | "pending_approval">;

export async function agentRunState(
  store: Store,
  projectId: string,
  agentId: string,
  include: readonly string[],
): Promise<AgentRunState> {
  // A run waiting for approval is still open, yet Letta reports its `requires_approval`.
  const recent = await store.listRuns({ projectId, agentId }, { limit: 5, order: "desc" });
  const last = recent.find((run) => run.stop_reason !== null);
  const pending = include.includes("agent.pending_approval")
    ? await pendingApproval(store, agentId)
    : null;
  const stopReason = StopReason.safeParse(last?.stop_reason);
  return {
    last_stop_reason: stopReason.success ? stopReason.data : null,
    pending_approval: pending,
  };
}

async function pendingApproval(store: Store, agentId: string): Promise<LettaMessageView | null> {
  const session = await store.loadSession(agentId);
  if (!session?.run_id) return null;
  const waiting = awaitingApproval(session);
  if (waiting.length === 0) return null;
  const requests = (await store.listRunMessages(session.run_id)).filter(
    (m) =>
      m.message_type === "approval_request_message" && waiting.includes(m.tool_call.tool_call_id),
  );
  const [first] = lettaMessages(requests);
  if (first?.message_type !== "approval_request_message") return null;
  const calls = session.pending
    .filter((call) => waiting.includes(call.tool_call.tool_call_id))
    .map((call) => call.tool_call);
  return { ...first, tool_calls: calls };
}
