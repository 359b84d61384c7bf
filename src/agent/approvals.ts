import { type FieldError, InvalidApprovalError } from "../core/errors.js";
import type { ClientTool } from "../records/client-tool.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import { type Applied, applyToolResult } from "./apply.js";
import { isClientTool } from "./decide.js";
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
 * Why `decisions` cannot answer what the session waits for: each must name a waiting call, every
 * waiting call needs an answer, and a client tool's call is answered with its result (a plain
 * approval would leave nobody to run it). Empty when they can.
 */
export function decisionProblems(
  state: SessionState,
  decisions: readonly ApprovalDecision[],
): FieldError[] {
  const waiting = awaitingApproval(state);
  const errors = decisions.flatMap((decision, i): FieldError[] => {
    const path = `approvals.${i}`;
    if (!waiting.includes(decision.tool_call_id)) {
      const message =
        waiting.length === 0
          ? "no tool call is awaiting approval; send a regular message instead"
          : `no approval is pending for '${decision.tool_call_id}'`;
      return [{ path: `${path}.tool_call_id`, message }];
    }
    const call = state.pending.find((p) => p.tool_call.tool_call_id === decision.tool_call_id);
    if (
      !("type" in decision) &&
      decision.approve &&
      call &&
      isClientTool(call.tool_call.name, state)
    ) {
      const message =
        `'${call.tool_call.name}' is a client tool: run it and send its result as ` +
        `{"type": "tool", "tool_call_id", "tool_return", "status"}`;
      return [{ path: `${path}.approve`, message }];
    }
    return [];
  });
  for (const id of waiting) {
    if (!decisions.some((decision) => decision.tool_call_id === id)) {
      errors.push({ path: "approvals", message: `a decision for tool call '${id}' is missing` });
    }
  }
  return errors;
}

/**
 * Applies a human's decisions, and a client's tool results, and makes the session runnable
 * again. Approving a per_session tool approves it for the rest of the session. A client's
 * result becomes the call's tool return at once, as if the tool had run here. Client tools sent
 * with the answer replace the run's from now on (Letta offers a request's own client tools).
 */
export function applyApprovalDecisions(
  state: SessionState,
  decisions: readonly ApprovalDecision[],
  stamp: MessageStamp,
  config: LoopConfig,
  clientTools?: readonly ClientTool[],
): Applied {
  const errors = decisionProblems(state, decisions);
  if (errors.length > 0) throw new InvalidApprovalError("invalid approval", errors);

  let approved = state.approved_tools;
  const pending = state.pending.map((call) => {
    const decision = decisions.find((d) => d.tool_call_id === call.tool_call.tool_call_id);
    if (!decision || call.status !== "awaiting_approval" || "type" in decision) return call;
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
  const answered: Applied = {
    state: {
      ...state,
      phase: "running",
      stop_reason: null,
      pending,
      approved_tools: approved,
      client_tools: clientTools ? [...clientTools] : state.client_tools,
    },
    messages: [message],
  };
  return recordClientReturns(answered, decisions, stamp, config);
}

/** Gives each call a client answered with its result that result as its tool return. */
function recordClientReturns(
  answered: Applied,
  decisions: readonly ApprovalDecision[],
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  let { state } = answered;
  const messages = [...answered.messages];
  for (const decision of decisions) {
    if (!("type" in decision)) continue;
    const index = state.pending.findIndex(
      (p) => p.tool_call.tool_call_id === decision.tool_call_id,
    );
    const result = { status: decision.status, output: decision.tool_return };
    const applied = applyToolResult(state, index, result, stamp, config, true);
    state = applied.state;
    messages.push(...applied.messages);
  }
  return { state, messages };
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
      reason: isClientTool(call.tool_call.name, state)
        ? "the client sent no result for this call before the request expired"
        : "the approval request expired without an answer",
    }));
}
