import type { ChainAgentSpec, ChainDefinition, ChainStage } from "../config/chain-definition.js";
import type { ChainAgentRun } from "../records/chain-run.js";
import { parseScore, structuredScore } from "./agent-output.js";
import type { ChainRunState } from "./chain-run-state.js";
import { agentTask, stageOutput, synthesisTask } from "./chain-tasks.js";
import { retrying } from "./retrying.js";
import { type AgentEnd, type ChainParts, runStageAgent } from "./stage-agent.js";

type StageEnd = { kind: "completed" } | { kind: "cancelled" } | { kind: "failed"; error: string };

/**
 * Drives one chain run from wherever its record says it is: stages in order, a stage's agents
 * one after another or all at once, `any` ending the stage at the first success (the others
 * are cancelled), synthesis over the stage's outputs, the score checked against its minimum.
 * Every step is safe to repeat, so after a crash the same record is simply driven again.
 */
export class ChainDriver {
  constructor(
    private readonly parts: ChainParts,
    private readonly chain: ChainDefinition,
    readonly state: ChainRunState,
  ) {}

  async drive(): Promise<void> {
    const { state } = this;
    for (const [index, stage] of this.chain.stages.entries()) {
      const run = state.stage(index);
      if (run.status === "completed") continue;
      if (state.current.cancel_requested) return this.#cancelled();
      state.updateStage(index, {
        status: "running",
        started_at_ms: run.started_at_ms ?? this.parts.clock.now(),
      });
      const end = await this.#stage(index, stage);
      if (end.kind === "cancelled" || state.current.cancel_requested) return this.#cancelled();
      const ended_at_ms = this.parts.clock.now();
      if (end.kind === "failed") {
        state.updateStage(index, { status: "failed", error: end.error, ended_at_ms });
        return state.finish("failed", { stage: stage.name, message: end.error });
      }
      const output = stageOutput(stage, run.agents, run.synthesis);
      // A score that is missing or too low fails its stage: the gate is the stage's purpose.
      const failure = stage.scoring ? this.#score(output, stage.scoring) : null;
      state.updateStage(index, {
        status: failure ? "failed" : "completed",
        output,
        error: failure,
        ended_at_ms,
      });
      if (failure) return state.finish("failed", { stage: stage.name, message: failure });
    }
    await state.finish("completed");
  }

  /** Asks every agent at work to stop; the stage then ends as cancelled. */
  async cancel(): Promise<void> {
    await this.state.requestCancel();
    const working = this.state.current.stages
      .flatMap((stage) => [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])])
      .filter((agent) => agent.status === "running" || agent.status === "awaiting_approval");
    await Promise.all(working.map((agent) => this.#stopAgent(agent)));
  }

  async #cancelled(): Promise<void> {
    // After a restart, agents whose tasks were in flight may still run: stop them too.
    await this.cancel();
    await this.state.finish("cancelled");
  }

  async #stage(index: number, stage: ChainStage): Promise<StageEnd> {
    const run = this.state.stage(index);
    const slots = stage.agents.map((spec, i) => ({ spec, slot: run.agents[i] as ChainAgentRun }));
    const any = stage.success === "any";
    const ends: AgentEnd[] = [];
    if (stage.parallel) {
      let decided = false;
      await Promise.all(
        slots.map(async ({ spec, slot }) => {
          const task = () => agentTask(spec, this.state.current, index);
          const end = await this.#agent(index, spec, slot, task, () => decided);
          ends.push(end);
          // `any`: the first success decides; `all`: the first failure does. The rest stop.
          if (!decided && (any ? end === "completed" : end !== "completed")) {
            decided = true;
            await this.#stopOthers(
              slots.map((s) => s.slot),
              slot,
            );
          }
        }),
      );
    } else {
      for (const { spec, slot } of slots) {
        const decided = any ? ends.includes("completed") : ends.some((end) => end !== "completed");
        if (decided || this.state.current.cancel_requested) {
          if (slot.status === "pending") this.state.updateAgent(index, slot, { status: "skipped" });
          continue;
        }
        const task = () => agentTask(spec, this.state.current, index);
        ends.push(await this.#agent(index, spec, slot, task, () => false));
      }
    }
    if (this.state.current.cancel_requested) return { kind: "cancelled" };
    const failure = stageFailure(run.agents, any);
    if (failure) return { kind: "failed", error: failure };
    const synthesis = stage.synthesis;
    if (!synthesis || !run.synthesis) return { kind: "completed" };
    const task = () => synthesisTask(synthesis, this.state.current, index, run.agents);
    const end = await this.#agent(index, synthesis, run.synthesis, task, () => false);
    if (end === "completed") return { kind: "completed" };
    if (end === "cancelled") return { kind: "cancelled" };
    return { kind: "failed", error: `synthesis failed: ${run.synthesis.error ?? end}` };
  }

  #agent(
    stageIndex: number,
    spec: ChainAgentSpec,
    slot: ChainAgentRun,
    task: () => string,
    unwanted: () => boolean,
  ) {
    return runStageAgent(this.parts, this.state, { stageIndex, spec, slot, task, unwanted });
  }

  async #stopOthers(slots: readonly ChainAgentRun[], winner: ChainAgentRun): Promise<void> {
    const others = slots.filter((slot) => slot !== winner);
    await Promise.all(others.map((slot) => this.#stopAgent(slot)));
  }

  async #stopAgent(slot: ChainAgentRun): Promise<void> {
    if (slot.status !== "running" && slot.status !== "awaiting_approval") return;
    const { clock, engine, signal } = this.parts;
    await retrying(clock, () => engine.cancel(slot.agent_id), signal).catch(() => false);
  }

  /**
   * Records the score: from a structured answer, its `score` field (and the whole answer as the
   * score's `result`); from free text, a `score: N` line or JSON in it. The reason the run fails
   * on it, or null if it passed.
   */
  #score(
    output: string,
    { min_score: minScore, structured }: { min_score: number | null; structured: boolean },
  ): string | null {
    const parsed = structured ? structuredScore(output) : null;
    const value = structured ? (parsed?.score ?? null) : parseScore(output);
    const passed = value !== null && (minScore === null || value >= minScore);
    const result = parsed ? { result: parsed.result } : {};
    this.state.setScore({ value, min_score: minScore, passed, ...result });
    if (value === null) {
      return structured
        ? "the scoring agent's structured answer holds no numeric 'score'"
        : `the scoring agent's answer holds no score (expected a line 'score: N' or JSON {"score": N})`;
    }
    return passed ? null : `score ${value} is below the minimum of ${minScore}`;
  }
}

/** Why a stage failed, from its agents' ends; null if it succeeded. */
function stageFailure(agents: readonly ChainAgentRun[], any: boolean): string | null {
  const failed = agents.filter(
    (agent) => agent.status === "failed" || agent.status === "cancelled",
  );
  if (any) {
    if (agents.some((agent) => agent.status === "completed")) return null;
    return `no agent succeeded: ${failed.map(describe).join("; ")}`;
  }
  // Agents stopped because another failed are not the reason: the first real failure is.
  const first = failed.find((agent) => agent.status === "failed") ?? failed[0];
  return first ? describe(first) : null;
}

const describe = (agent: ChainAgentRun) =>
  `agent '${agent.name}' ${agent.status === "cancelled" ? "was cancelled" : `failed: ${agent.error}`}`;
