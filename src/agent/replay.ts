import { ConflictError } from "../core/errors.js";
import type { JournalEntry, JournalStep, StepInput } from "../records/run-journal.js";
import { beginTurnState, newSessionState, type SessionState } from "../records/session-state.js";
import type { ToolImplementation } from "../tools/tool.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import { type Applied, applyModelResponse, applyToolResult, closePending } from "./apply.js";
import { applyApprovalDecisions, applyApprovalRequest } from "./approvals.js";
import { applyChildResults, applySpawned } from "./children.js";
import { nextStep, type Step } from "./decide.js";
import { checkCall } from "./execute-tool.js";
import type { LoopConfig } from "./loop-config.js";
import type { MessageStamp } from "./message-factory.js";
import { askClient, toolChoiceFor, toolsForCall } from "./perform-step.js";
import { describeStep, whyToday } from "./replay-explain.js";
import { applyVerifierStarted, applyVerifierUnavailable } from "./verify.js";

/** Where today's loop parts from a recorded run. */
export interface Divergence {
  /** The decision's place in the run: 1 is the first thing the loop decided. */
  step: number;
  /** The model call this decision followed (its messages carry this `step_id`), if any. */
  step_id: string | null;
  /** What the recorded run did there, and what today's code and config decide instead. */
  expected: string;
  actual: string;
  reason: string;
}

export type ReplayOutcome =
  | { matches: true; steps: number; complete: boolean }
  | ({ matches: false } & Divergence);

/** Raised for a journal that does not describe a run this loop could have made. */
export class JournalMismatchError extends ConflictError {}

/**
 * Replays a run's journal through today's decide/apply: each recorded decision is checked
 * against what `nextStep` decides now, and each recorded input (the model's response, a tool's
 * result, a human's decisions) is fed back in place of the I/O. Pure and deterministic: no
 * model is called and no tool runs. `tools` are the declarations calls are checked against.
 */
export function replayRun(
  journal: readonly JournalEntry[],
  config: LoopConfig,
  tools: ReadonlyMap<string, { readonly declaration: ToolDeclaration }>,
  runId: string,
): ReplayOutcome {
  const replay = new Replay(config, tools, runId);
  for (const entry of journal) {
    const diverged = replay.feed(entry);
    if (diverged) return { matches: false, ...diverged };
  }
  return { matches: true, steps: replay.decisions, complete: replay.finished };
}

class Replay {
  state: SessionState | null = null;
  decisions = 0;
  finished = false;
  /** The checkpoint before a call was marked started, until its step is replayed. */
  private beforeStart: SessionState | null = null;
  private readonly checkable: ReadonlyMap<string, ToolImplementation>;

  constructor(
    private readonly config: LoopConfig,
    private readonly tools: ReadonlyMap<string, { readonly declaration: ToolDeclaration }>,
    private readonly runId: string,
  ) {
    // checkCall reads only a tool's declaration: a replay never runs one.
    this.checkable = new Map(
      [...tools].map(([name, tool]) => [name, recordedOnly(tool.declaration)]),
    );
  }

  feed(entry: JournalEntry): Divergence | null {
    if (entry.kind === "begin") {
      const idle = { ...newSessionState("replay"), approved_tools: entry.approved_tools };
      this.state = beginTurnState(idle, this.runId, entry.client_tools);
      return null;
    }
    const state = this.state;
    if (state === null) throw new JournalMismatchError("the journal does not begin with a turn");
    const stamp: MessageStamp = { runId: this.runId, stepId: state.step_id, nowMs: 0 };
    switch (entry.kind) {
      case "step":
        return this.step(state, entry.step, entry.input, stamp);
      case "started":
        return this.started(state, entry.index);
      case "approvals":
        this.state = applyApprovalDecisions(
          state,
          entry.decisions,
          stamp,
          this.config,
          entry.client_tools ?? undefined,
        ).state;
        return null;
      case "children": {
        const waiting = this.decideWait(state);
        if (waiting) return waiting;
        const results = entry.results.map(({ index, status, output }) => ({
          index,
          result: { status, output },
        }));
        this.state = applyChildResults(this.state ?? state, results, stamp, this.config).state;
        return null;
      }
      case "cancel":
        this.state = closePending({ state, messages: [] }, "cancelled", stamp).state;
        return null;
      case "finish":
        return this.finish(state, entry.stop_reason);
    }
  }

  /** A recorded step: today's decision must be the same, then its recorded input is applied. */
  private step(
    state: SessionState,
    recorded: JournalStep,
    input: StepInput,
    stamp: MessageStamp,
  ): Divergence | null {
    const unmarked = this.beforeStart;
    this.beforeStart = null;
    if (unmarked && recorded.kind === "run_tool") state = unmarked;
    const today = this.decide(state);
    if (!sameStep(today, recorded)) return this.diverged(state, recorded, today);
    const applied = this.apply(state, recorded, input, stamp);
    if ("reason" in applied) return applied;
    this.state = applied.state;
    return null;
  }

  private apply(
    state: SessionState,
    step: JournalStep,
    input: StepInput,
    stamp: MessageStamp,
  ): Applied | Divergence {
    const { config } = this;
    const fail = (expected: string, actual: string, reason: string) =>
      this.divergence(state, expected, actual, reason);
    if (step.kind === "call_model") {
      if (input.type !== "model" && input.type !== "model_failed") return mismatch(step, input);
      const offered = toolsForCall(config, this.tools, state, step.final).map((t) => t.name);
      const choice = toolChoiceFor(config, state);
      if (!sameNames(offered, input.offered)) {
        const reason = "today's tool rules or capabilities offer the model different tools";
        return fail(offerOf(input.offered), offerOf(offered), reason);
      }
      if (choice !== input.tool_choice) {
        const reason = `today the model ${choice === "required" ? "must" : "need not"} call a tool`;
        return fail(`tool_choice ${input.tool_choice}`, `tool_choice ${choice}`, reason);
      }
      const withStep = { ...state, step_id: input.step_id };
      const at = { ...stamp, stepId: input.step_id };
      if (input.type === "model_failed") {
        return closePending({ state: withStep, messages: [] }, input.stop_reason, at);
      }
      return applyModelResponse(
        withStep,
        input.response,
        { final: step.final, offered },
        at,
        config,
      );
    }
    if (step.kind === "run_tool") {
      if (input.type !== "tool") return mismatch(step, input);
      const call = state.pending[step.index];
      if (!call) throw new JournalMismatchError(`no tool call ${step.index} to run`);
      const checked = checkCall(call, state, config.capabilities, this.checkable);
      const { executed, ...result } = input.result;
      if (checked.ok !== executed) {
        const name = call.tool_call.name;
        return checked.ok
          ? fail(`'${name}' refused: ${result.output}`, `'${name}' runs`, "today the call passes")
          : fail(`'${name}' ran`, `'${name}' refused`, checked.error);
      }
      return applyToolResult(state, step.index, result, stamp, config, executed);
    }
    return this.applyOther(state, step, input, stamp);
  }

  private applyOther(
    state: SessionState,
    step: JournalStep,
    input: StepInput,
    stamp: MessageStamp,
  ): Applied {
    const { config } = this;
    const error = (index: number, output: string) =>
      applyToolResult(state, index, { status: "error", output }, stamp, config, false);
    switch (step.kind) {
      case "reject_tool":
        return error(step.index, step.reason);
      case "request_approval":
        return applyApprovalRequest(state, step.index, stamp, config);
      case "ask_client":
        return askClient(state, step.index, stamp, config);
      case "spawn_child":
        if (input.type === "spawned") return applySpawned(state, step.index, input.child_agent_id);
        if (input.type === "refused") return error(step.index, input.error);
        return mismatch(step, input);
      case "verify":
        if (input.type === "verifier") {
          return applyVerifierStarted(state, input.child_agent_id, input.task);
        }
        if (input.type === "refused") return applyVerifierUnavailable(state, input.error);
        return mismatch(step, input);
      default:
        return mismatch(step, input);
    }
  }

  /**
   * A call marked started just before it ran (its tool is not idempotent). Its `run_tool` step
   * follows, decided on the checkpoint before the mark; after a crash, a rejection follows
   * instead, decided on the checkpoint with it.
   */
  private started(state: SessionState, index: number): Divergence | null {
    const expected: JournalStep = { kind: "run_tool", index };
    if (!sameStep(nextStep(state, this.config), expected)) {
      return this.diverged(state, expected, this.decide(state));
    }
    this.beforeStart = state;
    this.state = { ...state, pending: withStatus(state, index, "started") };
    return null;
  }

  private decideWait(state: SessionState): Divergence | null {
    if (state.phase !== "running") return null;
    const today = this.decide(state);
    if (today.kind !== "await_children") {
      return this.divergence(
        state,
        "waits for its sub-agents",
        describeStep(today, state),
        whyToday(today, state, this.config),
      );
    }
    this.state = { ...state, phase: "awaiting_children" };
    return null;
  }

  private finish(state: SessionState, stopReason: SessionState["stop_reason"]): Divergence | null {
    const today = this.decide(state);
    const expected: Step = { kind: "finish", stopReason: stopReason ?? "end_turn" };
    if (!sameStep(today, expected)) return this.diverged(state, expected, today);
    const phase: SessionState["phase"] =
      stopReason === "requires_approval"
        ? "awaiting_approval"
        : state.pause_until_ms !== null
          ? "paused"
          : "idle";
    this.state = { ...state, phase, stop_reason: stopReason };
    this.finished = phase !== "awaiting_approval";
    return null;
  }

  private decide(state: SessionState): Step {
    this.decisions += 1;
    return nextStep(state, this.config);
  }

  private diverged(state: SessionState, recorded: JournalStep | Step, today: Step): Divergence {
    return this.divergence(
      state,
      describeStep(recorded, state),
      describeStep(today, state),
      whyToday(today, state, this.config, recorded),
    );
  }

  private divergence(
    state: SessionState,
    expected: string,
    actual: string,
    reason: string,
  ): Divergence {
    return { step: this.decisions, step_id: state.step_id, expected, actual, reason };
  }
}

function withStatus(
  state: SessionState,
  index: number,
  status: SessionState["pending"][number]["status"],
): SessionState["pending"] {
  return state.pending.map((p, i) => (i === index ? { ...p, status } : p));
}

/** Steps are flat records: equal when every field is, whatever the order of their keys. */
function sameStep(today: Step, recorded: JournalStep | Step): boolean {
  const canonical = (step: object) => JSON.stringify(step, Object.keys(step).sort());
  return canonical(today) === canonical(recorded);
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

function offerOf(names: readonly string[]): string {
  return names.length === 0 ? "no tools offered" : `tools offered: ${[...names].sort().join(", ")}`;
}

function mismatch(step: JournalStep, input: StepInput): never {
  throw new JournalMismatchError(`a '${step.kind}' step recorded with a '${input.type}' input`);
}

/** A tool as a replay knows it: its declaration; running it is a bug. */
function recordedOnly(declaration: ToolDeclaration): ToolImplementation {
  return {
    declaration,
    idempotent: true,
    stagedEffects: true,
    timeoutMs: 0,
    run: () => Promise.reject(new Error("a replay never runs a tool")),
  };
}
