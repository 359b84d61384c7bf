import { describe, expect, it } from "vitest";
import { newSessionState } from "../records/session-state.js";
import { nextStep } from "./decide.js";
import type { LoopConfig } from "./loop-config.js";
import { applyVerdict, applyVerifierStarted, applyVerifierUnavailable } from "./verify.js";

const config = (maxRounds: number) =>
  ({
    verify: { with: "verifier", maxRounds },
    rules: [],
    finalAnswerAtLimit: false,
    capabilities: { limits: { max_iterations: 10 } },
  }) as unknown as LoopConfig;
const stamp = { runId: "run-1", stepId: "step-1", nowMs: 0 };
const answered = {
  ...newSessionState("s"),
  phase: "running" as const,
  run_id: "run-1",
  iteration: 1,
  stop_reason: "end_turn" as const,
};

describe("the verifier gate", () => {
  it("sends an answer that would end the turn to a verifier first, and waits for it", () => {
    expect(nextStep(answered, config(2))).toEqual({ kind: "verify" });
    const waiting = applyVerifierStarted(answered, "agent-v", "task").state;
    expect(nextStep(waiting, config(2))).toEqual({ kind: "await_children" });
  });

  it("ends the turn on a pass", () => {
    const waiting = applyVerifierStarted(answered, "agent-v", "task").state;
    const passed = applyVerdict(
      waiting,
      { status: "success", output: "PASS: fine" },
      stamp,
      config(2),
    );
    expect(passed.state.verification).toMatchObject({ passed: true, rounds: 1, findings: [] });
    expect(nextStep(passed.state, config(2))).toEqual({ kind: "finish", stopReason: "end_turn" });
  });

  it("gives a fail's findings back for another round, and after the last fail ends unverified", () => {
    const first = applyVerifierStarted(answered, "agent-v", "task").state;
    const failed = applyVerdict(
      first,
      { status: "success", output: "FAIL: wrong" },
      stamp,
      config(2),
    );
    expect(failed.messages[0]).toMatchObject({ message_type: "system_message" });
    expect(nextStep(failed.state, config(2))).toEqual({ kind: "call_model", final: false });
    const again = { ...failed.state, stop_reason: "end_turn" as const };
    expect(nextStep(again, config(2))).toEqual({ kind: "verify" });
    const second = applyVerifierStarted(again, "agent-v2", "task").state;
    const last = applyVerdict(
      second,
      { status: "success", output: "FAIL: still" },
      stamp,
      config(2),
    );
    expect(last.state.verification).toMatchObject({
      passed: false,
      rounds: 2,
      findings: ["FAIL: wrong", "FAIL: still"],
    });
    expect(nextStep(last.state, config(2))).toEqual({ kind: "finish", stopReason: "end_turn" });
  });

  it("counts a verifier that failed to run as a failed check, never as a pass", () => {
    const waiting = applyVerifierStarted(answered, "agent-v", "task").state;
    const broken = applyVerdict(
      waiting,
      { status: "error", output: "PASS (but the run failed)" },
      stamp,
      config(1),
    );
    expect(broken.state.verification?.passed).toBe(false);
    const none = applyVerifierUnavailable(answered, "no such type");
    expect(none.state.verification).toMatchObject({ passed: false, rounds: 0 });
    expect(nextStep(none.state, config(2))).toEqual({ kind: "finish", stopReason: "end_turn" });
  });
});
