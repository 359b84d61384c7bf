import type { AgentMessage } from "../records/messages.js";
import type { SessionState, Verification } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import type { Applied } from "./apply.js";
import type { LoopConfig } from "./loop-config.js";
import { type MessageStamp, stampMessage, stepMessageId } from "./message-factory.js";
import { finalAnswer } from "./spawn-tools.js";

/** The slot a verifier's verdict arrives in, beside the indexes of spawn calls. */
export const VERDICT = -1;

/** Whether an answer that ends the turn must first go to a verifier (another round). */
export function wantsVerification(state: SessionState, config: LoopConfig): boolean {
  const gate = config.verify;
  if (!gate) return false;
  const v = state.verification;
  return v === null || (!v.final && v.verifier_agent_id === null && v.rounds < gate.maxRounds);
}

/** The verifier of the round in progress, if one is working. */
export function verifierAtWork(state: SessionState): string | null {
  const v = state.verification;
  return v && v.passed === null ? v.verifier_agent_id : null;
}

/** What a verifier is asked: the run's task and the answer given to it. */
export function verifierTask(runMessages: readonly AgentMessage[]): string {
  const task = runMessages.find((m) => m.message_type === "user_message");
  return [
    "Check this answer against its task. Reply PASS if it is correct and complete; otherwise",
    "reply FAIL followed by what is wrong or missing.",
    "",
    "Task:",
    task && "content" in task ? task.content : "(no task)",
    "",
    "Answer:",
    finalAnswer(runMessages),
  ].join("\n");
}

/** A round starts: the turn waits for verifier `childId`, and its answer is not final yet. */
export function applyVerifierStarted(state: SessionState, childId: string, task: string): Applied {
  const before = state.verification;
  const verification: Verification = {
    rounds: (before?.rounds ?? 0) + 1,
    verifier_agent_id: childId,
    verifier_task: task,
    passed: null,
    findings: before?.findings ?? [],
    final: false,
  };
  return { state: { ...state, verification, stop_reason: null, after_tools: null }, messages: [] };
}

/** A verifier could not be started: the answer stands, marked as not verified. */
export function applyVerifierUnavailable(state: SessionState, why: string): Applied {
  const before = state.verification;
  const verification: Verification = {
    rounds: before?.rounds ?? 0,
    verifier_agent_id: null,
    verifier_task: null,
    passed: false,
    findings: [...(before?.findings ?? []), `no verifier could check the answer: ${why}`],
    final: true,
  };
  return { state: { ...state, verification, stop_reason: "end_turn" }, messages: [] };
}

/**
 * The verifier's verdict: a pass ends the turn; a fail with rounds left tells the agent what
 * was found and lets it answer again; the last fail ends the turn as not verified.
 */
export function applyVerdict(
  state: SessionState,
  verdict: ToolResult,
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  const v = state.verification;
  if (!v || v.passed !== null) return { state, messages: [] };
  const text = verdict.output.trim();
  const passed = verdict.status === "success" && /^pass\b/i.test(text);
  const findings = passed ? v.findings : [...v.findings, text || "(the verifier said nothing)"];
  const final = passed || v.rounds >= (config.verify?.maxRounds ?? 0);
  const verification = {
    ...v,
    verifier_agent_id: null,
    verifier_task: null,
    passed,
    findings,
    final,
  };
  if (final) {
    return { state: { ...state, verification, stop_reason: "end_turn" }, messages: [] };
  }
  const message = stampMessage(stamp, stepMessageId(stamp.stepId ?? "step-x", `v${v.rounds}`), {
    message_type: "system_message",
    content: `A verifier checked your answer and found:\n${text}\nFix what it found and answer again.`,
  });
  return {
    state: { ...state, verification, stop_reason: null, after_tools: null },
    messages: [message],
  };
}
