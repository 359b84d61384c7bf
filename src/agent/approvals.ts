import { ValidationError } from "../core/errors.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { Applied } from "./apply.js";
import type { LoopConfig } from "./loop-config.js";
import { type MessageStamp, stampMessage, stepMessageId } from "./message-factory.js";

/** Stops the turn to ask a human about call `index`; the request expires per policy. */
export function applyApprovalRequest(
  state: SessionState,
  index: number,
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  const expires = stamp.nowMs + config.approvalTimeoutMs;
  const pending = state.pending.map((call, i) =>
    i === index
      ? { ...call, status: "awaiting_approval" as const, approval_expires_at_ms: expires }
      : call,
  );
  const call = state.pending[index];
  const messages = call
    ? [
        stampMessage(stamp, stepMessageId(stamp.stepId ?? "step-x", `q${index}`), {
          message_type: "approval_request_message",
          tool_call: call.tool_call,
        }),
      ]
    : [];
  return { state: { ...state, pending, stop_reason: "requires_approval" }, messages };
}

/** The tool call ids waiting for a decision. */
export function awaitingApproval(state: SessionState): string[] {
  return state.pending
    .filter((call) => call.status === "awaiting_approval")
    .map((call) => call.tool_call.tool_call_id);
}

/**
 * Applies a human's decisions and makes the session runnable again. Every waiting call needs a
 * decision; a decision for anything else is refused. Approving a per_session tool approves it
 * for the rest of the session.
 */
export function applyApprovalDecisions(
  state: SessionState,
  decisions: readonly ApprovalDecision[],
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  const waiting = awaitingApproval(state);
  const errors = decisions.flatMap((decision, i) =>
    waiting.includes(decision.tool_call_id)
      ? []
      : [
          {
            path: `approvals.${i}.tool_call_id`,
            message: `no approval is pending for '${decision.tool_call_id}'`,
          },
        ],
  );
  for (const id of waiting) {
    if (!decisions.some((decision) => decision.tool_call_id === id)) {
      errors.push({ path: "approvals", message: `a decision for tool call '${id}' is missing` });
    }
  }
  if (errors.length > 0) throw new ValidationError("invalid approval", errors);

  let approved = state.approved_tools;
  const pending = state.pending.map((call) => {
    const decision = decisions.find((d) => d.tool_call_id === call.tool_call.tool_call_id);
    if (!decision || call.status !== "awaiting_approval") return call;
    if (!decision.approve) {
      const reason = decision.reason ? `denied: ${decision.reason}` : "denied by the user";
      return { ...call, status: "denied" as const, denial_reason: reason };
    }
    const grant = config.capabilities.offered.find((tool) => tool.name === call.tool_call.name);
    if (grant?.approval === "per_session" && !approved.includes(grant.name)) {
      approved = [...approved, grant.name];
    }
    return { ...call, status: "approved" as const };
  });
  // One response per decided call set: the first decided call's index keeps the id unique
  // when one model response asks for several approvals, one after another.
  const first = state.pending.findIndex((call) =>
    decisions.some((d) => d.tool_call_id === call.tool_call.tool_call_id),
  );
  const message = stampMessage(stamp, stepMessageId(stamp.stepId ?? "step-x", `d${first}`), {
    message_type: "approval_response_message",
    approvals: [...decisions],
  });
  return {
    state: { ...state, phase: "running", stop_reason: null, pending, approved_tools: approved },
    messages: [message],
  };
}

/** Denies every waiting call whose request has expired by `nowMs`. */
export function expireApprovals(state: SessionState, nowMs: number): ApprovalDecision[] {
  return state.pending
    .filter(
      (call) =>
        call.status === "awaiting_approval" &&
        call.approval_expires_at_ms !== null &&
        call.approval_expires_at_ms <= nowMs,
    )
    .map((call) => ({
      tool_call_id: call.tool_call.tool_call_id,
      approve: false,
      reason: "the approval request expired without an answer",
    }));
}
