import type { JournalStep } from "../records/run-journal.js";
import type { SessionState } from "../records/session-state.js";
import type { Step } from "./decide.js";
import type { LoopConfig } from "./loop-config.js";
import { endsTurn, needsApprovalByRule } from "./tool-rules.js";

/** What a replay says of its steps and divergences: plain sentences for a person debugging. */

/** A step as a person reads it, with the tool it concerns. */
export function describeStep(step: Step | JournalStep, state: SessionState): string {
  const tool = (index: number) =>
    `'${state.pending[index]?.tool_call.name ?? "?"}' (call ${index})`;
  switch (step.kind) {
    case "call_model":
      return step.final ? "a final model call without tools" : "call the model";
    case "run_tool":
      return `run ${tool(step.index)}`;
    case "reject_tool":
      return `reject ${tool(step.index)}`;
    case "request_approval":
      return `ask for approval of ${tool(step.index)}`;
    case "ask_client":
      return `ask the client to run ${tool(step.index)}`;
    case "spawn_child":
      return `start a sub-agent for ${tool(step.index)}`;
    case "await_children":
      return "wait for its sub-agents";
    case "verify":
      return "give the answer to the verifier";
    case "finish":
      return `end the turn (${step.stopReason})`;
  }
}

/** Why today's code and config decide `today` where the recorded run did `recorded`. */
export function whyToday(
  today: Step,
  state: SessionState,
  config: LoopConfig,
  recorded?: Step | JournalStep,
): string {
  const limits = config.capabilities.limits;
  const name = (index: number) => state.pending[index]?.tool_call.name ?? "?";
  switch (today.kind) {
    case "reject_tool":
      return `today the call is rejected: ${today.reason}`;
    case "request_approval": {
      const tool = name(today.index);
      return needsApprovalByRule(config.rules, tool)
        ? `a requires_approval tool rule now covers '${tool}'`
        : `'${tool}' now needs approval by its approval policy`;
    }
    case "run_tool":
    case "spawn_child": {
      const tool = name(today.index);
      if (recorded?.kind === "request_approval") return `'${tool}' no longer needs approval`;
      if (recorded?.kind === "reject_tool") {
        return `'${tool}' is no longer rejected (the recorded run said: ${recorded.reason})`;
      }
      break;
    }
    case "finish":
      if (today.stopReason === "max_steps") {
        return `the turn has made ${state.iteration} model calls, today's max_iterations is ${limits.max_iterations}`;
      }
      if (today.stopReason === "tool_rule") {
        const tools = state.pending
          .map((c) => c.tool_call.name)
          .filter((t) => endsTurn(config.rules, t));
        return `an exit_loop tool rule now ends the turn after ${tools.map((t) => `'${t}'`).join(", ")}`;
      }
      if (recorded?.kind === "call_model") {
        return `today the turn ends here (${today.stopReason}) instead of calling the model again`;
      }
      break;
    case "call_model":
      if (recorded?.kind === "finish") {
        return `today the turn goes on (${state.iteration} of at most ${limits.max_iterations} model calls made); the recorded run ended with ${recorded.stopReason}`;
      }
      if (recorded?.kind === "call_model" && today.final) {
        return `the turn has made ${state.iteration} model calls, today's max_iterations is ${limits.max_iterations}: a final call without tools follows`;
      }
      break;
    default:
      break;
  }
  return `today's code and config decide to ${describeStep(today, state)} here`;
}
