import { assert } from "../core/errors.js";
import type { StopReason } from "../records/messages.js";
import type { PendingCall, SessionState } from "../records/session-state.js";
import type { LoopConfig } from "./loop-config.js";
import { needsApprovalByRule } from "./tool-rules.js";
import { verifierAtWork, wantsVerification } from "./verify.js";

/** The next thing a running turn does. Deciding it is pure; doing it is the runner's job. */
export type Step =
  | { kind: "call_model"; final: boolean }
  | { kind: "run_tool"; index: number }
  | { kind: "reject_tool"; index: number; reason: string }
  | { kind: "request_approval"; index: number }
  /** Call `index` is of a client tool: its caller runs it, so the turn stops to ask for it. */
  | { kind: "ask_client"; index: number }
  /** Start a sub-agent for call `index`; the call then waits for it (`awaiting_child`). */
  | { kind: "spawn_child"; index: number }
  /** Every open call waits for a sub-agent: the turn sleeps until their runs end. */
  | { kind: "await_children" }
  /** The answer goes to a verifier sub-agent before it is final (the verifier gate). */
  | { kind: "verify" }
  | { kind: "finish"; stopReason: StopReason };

/** The tool whose calls start sub-agents instead of running in the loop. */
export const SPAWN_TOOL = "spawn_agent";

/** Decides the next step of a running turn from its checkpoint alone. */
export function nextStep(state: SessionState, config: LoopConfig): Step {
  assert(state.phase === "running", `nextStep on a session in phase '${state.phase}'`);
  if (verifierAtWork(state) !== null) return { kind: "await_children" };
  if (state.stop_reason !== null) return finishOrVerify(state.stop_reason, state, config);

  const index = state.pending.findIndex(
    (call) => call.status !== "done" && call.status !== "awaiting_child",
  );
  const call = state.pending[index];
  if (call) return stepForCall(call, index, state, config);
  if (state.pending.some((c) => c.status === "awaiting_child")) return { kind: "await_children" };

  if (state.after_tools !== null && state.after_tools !== "continue") {
    return finishOrVerify(state.after_tools, state, config);
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
      return runStep(call, index);
    case "started":
      // Only a restart finds a call started: the process that started it ran it at once.
      return { kind: "reject_tool", index, reason: outcomeUnknown(call.tool_call.name) };
    case "pending": {
      const limit = config.capabilities.limits.max_tool_calls_per_turn;
      if (state.tool_calls >= limit) {
        return {
          kind: "reject_tool",
          index,
          reason: `this turn's limit of ${limit} tool calls is reached`,
        };
      }
      if (isClientTool(call.tool_call.name, state)) return { kind: "ask_client", index };
      return needsApproval(call.tool_call.name, state, config)
        ? { kind: "request_approval", index }
        : runStep(call, index);
    }
    case "awaiting_approval":
    case "awaiting_child":
    case "done":
      assert(false, `a running turn has a call in status '${call.status}'`);
  }
}

/** What the model is told of a call that was in flight at a crash and is not run again. */
export function outcomeUnknown(tool: string): string {
  return (
    `the outcome of this call is unknown: the server stopped while '${tool}' was running, ` +
    "and it was not run again because it is not idempotent. Check its effects before calling it again."
  );
}

/** An answer that ends the turn passes the verifier gate first, if the type has one. */
function finishOrVerify(stopReason: StopReason, state: SessionState, config: LoopConfig): Step {
  return stopReason === "end_turn" && wantsVerification(state, config)
    ? { kind: "verify" }
    : { kind: "finish", stopReason };
}

function runStep(call: PendingCall, index: number): Step {
  return call.tool_call.name === SPAWN_TOOL
    ? { kind: "spawn_child", index }
    : { kind: "run_tool", index };
}

/** Whether `tool` is one of the run's client tools, which its caller runs, never the server. */
export function isClientTool(tool: string, state: SessionState): boolean {
  return state.client_tools.some((client) => client.name === tool);
}

/** Whether a call of `tool` must wait for a human: by tool rule, or by its grant's policy. */
export function needsApproval(tool: string, state: SessionState, config: LoopConfig): boolean {
  if (needsApprovalByRule(config.rules, tool)) return true;
  const grant = config.capabilities.offered.find((offered) => offered.name === tool);
  if (!grant) return false; // Not offered: it is rejected when run, nothing to approve.
  if (grant.approval === "per_action") return true;
  return grant.approval === "per_session" && !state.approved_tools.includes(tool);
}
