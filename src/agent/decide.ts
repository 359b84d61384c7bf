import { assert } from "../core/errors.js";
import type { StopReason } from "../records/messages.js";
import type { PendingCall, SessionState } from "../records/session-state.js";
import type { LoopConfig } from "./loop-config.js";
import { needsApprovalByRule } from "./tool-rules.js";

/** The next thing a running turn does. Deciding it is pure; doing it is the runner's job. */
export type Step =
  | { kind: "call_model"; final: boolean }
  | { kind: "run_tool"; index: number }
  | { kind: "reject_tool"; index: number; reason: string }
  | { kind: "request_approval"; index: number }
  | { kind: "finish"; stopReason: StopReason };

/** Decides the next step of a running turn from its checkpoint alone. */
export function nextStep(state: SessionState, config: LoopConfig): Step {
  assert(state.phase === "running", `nextStep on a session in phase '${state.phase}'`);
  if (state.stop_reason !== null) return { kind: "finish", stopReason: state.stop_reason };

  const index = state.pending.findIndex((call) => call.status !== "done");
  const call = state.pending[index];
  if (call) return stepForCall(call, index, state, config);

  if (state.after_tools !== null && state.after_tools !== "continue") {
    return { kind: "finish", stopReason: state.after_tools };
  }
  if (state.iteration >= config.capabilities.limits.max_iterations) {
    if (config.finalAnswerAtLimit && !state.forced_final)
      return { kind: "call_model", final: true };
    return { kind: "finish", stopReason: "max_steps" };
  }
  return { kind: "call_model", final: false };
}

function stepForCall(
  call: PendingCall,
  index: number,
  state: SessionState,
  config: LoopConfig,
): Step {
  switch (call.status) {
    case "denied":
      return { kind: "reject_tool", index, reason: call.denial_reason ?? "the call was denied" };
    case "approved":
      return { kind: "run_tool", index };
    case "pending": {
      const limit = config.capabilities.limits.max_tool_calls_per_turn;
      if (state.tool_calls >= limit) {
        return {
          kind: "reject_tool",
          index,
          reason: `this turn's limit of ${limit} tool calls is reached`,
        };
      }
      return needsApproval(call.tool_call.name, state, config)
        ? { kind: "request_approval", index }
        : { kind: "run_tool", index };
    }
    case "awaiting_approval":
    case "awaiting_child":
    case "done":
      assert(false, `a running turn has a call in status '${call.status}'`);
  }
}

/** Whether a call of `tool` must wait for a human: by tool rule, or by its grant's policy. */
export function needsApproval(tool: string, state: SessionState, config: LoopConfig): boolean {
  if (needsApprovalByRule(config.rules, tool)) return true;
  const grant = config.capabilities.offered.find((offered) => offered.name === tool);
  if (!grant) return false; // Not offered: it is rejected when run, nothing to approve.
  if (grant.approval === "per_action") return true;
  return grant.approval === "per_session" && !state.approved_tools.includes(tool);
}
