import { parseScore } from "../chains/agent-output.js";
import { stageAgentIds } from "../chains/chain-record.js";
import type { ChainDefinition } from "../config/chain-definition.js";
import type { AgentRecord, RunRecord } from "../records/agent-record.js";
import type { ChainAgentRun, ChainRunRecord, ChainStageRun } from "../records/chain-run.js";
import type { WorkloadLog } from "./client-ops.js";
import type { SimWorld } from "./sim-world.js";

/** What the chain invariants looked at, for the summary. */
export interface ChainSummary {
  chain_runs_completed: number;
  chain_runs_failed: number;
  chain_runs_cancelled: number;
  /** Failed runs whose scoring agent gave no score, or a score below the minimum. */
  chain_scores_missing: number;
  chain_scores_below: number;
  chain_stage_agents: number;
}

const ALL = { limit: 1_000_000, order: "asc" } as const;
const SETTLED = new Set(["idle", "paused"]);
const FINISHED = new Set(["completed", "failed", "cancelled"]);

/** A stage's agents and its synthesis, in the order they run. */
const slotsOf = (stage: ChainStageRun): ChainAgentRun[] => [
  ...stage.agents,
  ...(stage.synthesis ? [stage.synthesis] : []),
];

/** A stage agent as the store has it: its record and its task's runs (by the chain's key). */
interface StageAgent {
  slot: ChainAgentRun;
  record: AgentRecord | null;
  /** Runs of the agent started by its chain task (any `chain:` key). */
  taskRuns: RunRecord[];
}

/**
 * Chains once the world is quiet, over every chain run on the disk: (1) each stage agent is
 * one agent that ran its task once; (2) stages ran in order; (3) a finished run has every
 * completed stage's output, or an error naming the stage that failed; (4) a completed graded
 * run scored at least its minimum, and an answer with no score failed the run (never a 0);
 * (5) an `any` stage of a completed run had a success; (6) no run is left unfinished, and no
 * stage agent is left at work.
 */
export async function chainInvariants(
  world: SimWorld,
  log: WorkloadLog,
): Promise<{ violations: string[]; summary: ChainSummary }> {
  const out: string[] = [];
  const summary: ChainSummary = {
    chain_runs_completed: 0,
    chain_runs_failed: 0,
    chain_runs_cancelled: 0,
    chain_scores_missing: 0,
    chain_scores_below: 0,
    chain_stage_agents: 0,
  };
  const runs = await world.disk.listChainRuns({ projectId: "default" }, ALL);
  const stored = new Set(runs.map((run) => run.id));
  for (const runId of log.chains.runs)
    if (!stored.has(runId)) out.push(`chain run ${runId} was started, yet is not stored`);
  out.push(...(await oneAgentEach(world, runs)));
  for (const run of runs) {
    const chain = world.config.chains.get(run.chain);
    if (!chain) {
      out.push(`chain run ${run.id} is of an unknown chain '${run.chain}'`);
      continue;
    }
    if (run.status === "completed") summary.chain_runs_completed += 1;
    if (run.status === "failed") summary.chain_runs_failed += 1;
    if (run.status === "cancelled") summary.chain_runs_cancelled += 1;
    if (run.status === "failed" && run.score?.value === null) summary.chain_scores_missing += 1;
    if (run.status === "failed" && run.score && !run.score.passed && run.score.value !== null)
      summary.chain_scores_below += 1;
    const agents = await stageAgents(world, run);
    summary.chain_stage_agents += agents.length;
    out.push(...agents.flatMap((agent) => ranOnce(run, agent)));
    for (const agent of agents) out.push(...(await outputKept(world, run, agent)));
    out.push(...inOrder(run, chain, agents));
    out.push(...finishedShape(run));
    out.push(...scored(run, chain));
    out.push(...anySucceeded(run, chain));
    out.push(...(await leftAtWork(world, run, agents)));
  }
  return { violations: out, summary };
}

/** (1) One agent per (run, stage, name), with the id the run derives, each a slot of its run. */
async function oneAgentEach(world: SimWorld, runs: readonly ChainRunRecord[]): Promise<string[]> {
  const out: string[] = [];
  const byRun = new Map(runs.map((run) => [run.id, run]));
  const seen = new Map<string, string>();
  for (const agent of await world.disk.listAgents("default", ALL)) {
    const { chain_run_id: runId, stage } = agent.metadata;
    if (typeof runId !== "string") continue;
    const key = `${runId}/${agent.name}`;
    const other = seen.get(key);
    if (other)
      out.push(`two agents for ${key} of stage ${String(stage)}: ${other} and ${agent.id}`);
    seen.set(key, agent.id);
    const run = byRun.get(runId);
    const slot = run?.stages
      .find((s) => s.name === stage)
      ?.agents.concat(run.stages.find((s) => s.name === stage)?.synthesis ?? [])
      .find((a) => a.agent_id === agent.id);
    if (!slot)
      out.push(`agent ${agent.id} says it is of chain run ${runId}, which has no such agent`);
  }
  return out;
}

async function stageAgents(world: SimWorld, run: ChainRunRecord): Promise<StageAgent[]> {
  const agents: StageAgent[] = [];
  for (const stage of run.stages) {
    for (const slot of slotsOf(stage)) {
      const record = await world.disk.getAgent(slot.agent_id);
      const runs = record
        ? await world.disk.listRuns({ projectId: record.project_id, agentId: record.id }, ALL)
        : [];
      const taskRuns = runs.filter((r) => r.idempotency_key?.startsWith("chain:"));
      agents.push({ slot, record, taskRuns });
    }
  }
  return agents;
}

/** (1) Its id is the derived one; its task ran at most once, under its own key; what ended ran. */
function ranOnce(run: ChainRunRecord, agent: StageAgent): string[] {
  const out: string[] = [];
  const { slot, taskRuns } = agent;
  const stage = run.stages.find((s) => slotsOf(s).includes(slot))?.name ?? "";
  const ids = stageAgentIds(run.id, stage, slot.name);
  const who = `stage agent ${stage}/${slot.name} of ${run.id}`;
  if (slot.agent_id !== ids.agentId) out.push(`${who} is ${slot.agent_id}, not ${ids.agentId}`);
  if (taskRuns.length > 1) out.push(`${who} ran its task ${taskRuns.length} times`);
  if (taskRuns.some((r) => r.idempotency_key !== ids.otid))
    out.push(`${who} ran a task under another key than ${ids.otid}`);
  const task = taskRuns[0];
  if (slot.status === "completed") {
    if (!task) out.push(`${who} completed, yet its task never ran`);
    else if (task.status !== "completed")
      out.push(`${who} completed, yet its task run ${task.status}`);
    else if (slot.ended_at_ms !== null && (task.completed_at_ms ?? 0) > slot.ended_at_ms)
      out.push(`${who} was recorded as completed before its task run ended`);
  }
  if (task && slot.run_id !== null && slot.run_id !== task.id)
    out.push(`${who} records run ${slot.run_id}, yet its task ran as ${task.id}`);
  return out;
}

/**
 * (3) What a stage agent is recorded to have produced is what its task run said: a completed
 * agent's output is one of its run's replies (text, a `send_message`, or reasoning), and an
 * agent failed for saying nothing said nothing.
 */
async function outputKept(
  world: SimWorld,
  run: ChainRunRecord,
  { slot, record, taskRuns }: StageAgent,
): Promise<string[]> {
  const task = taskRuns[0];
  const silent = slot.status === "failed" && /no output/.test(slot.error ?? "");
  if (!record || !task || (slot.status !== "completed" && !silent)) return [];
  const said = (await world.disk.listMessages(record.id, ALL)).flatMap((m) => {
    if (m.run_id !== task.id) return [];
    if (m.message_type === "assistant_message") return [m.content];
    if (m.message_type === "reasoning_message") return [m.reasoning];
    if (m.message_type === "tool_call_message" && m.tool_call.name === "send_message")
      return [String((JSON.parse(m.tool_call.arguments) as { message?: unknown }).message)];
    return [];
  });
  const who = `stage agent ${slot.name} (${record.id}) of chain run ${run.id}`;
  if (silent && said.some((text) => text.trim()))
    return [`${who} failed for saying nothing, yet its run said ${JSON.stringify(said.at(-1))}`];
  if (slot.status === "completed" && !said.includes(slot.output ?? ""))
    return [`${who} completed with an output its run never said`];
  return [];
}

/**
 * (2) A stage began only once the stage before it completed, and after every task run of that
 * stage ended; one after another means one after another; a synthesis came after its agents.
 */
function inOrder(
  run: ChainRunRecord,
  chain: ChainDefinition,
  agents: readonly StageAgent[],
): string[] {
  const out: string[] = [];
  const task = (slot: ChainAgentRun) => agents.find((a) => a.slot === slot)?.taskRuns[0] ?? null;
  const begun = (stage: ChainStageRun) => {
    const starts = slotsOf(stage).flatMap((slot) => task(slot)?.created_at_ms ?? []);
    return starts.length > 0 ? Math.min(...starts) : null;
  };
  run.stages.forEach((stage, i) => {
    const before = run.stages[i - 1];
    const began = begun(stage);
    const at = `stage ${stage.name} of ${run.id}`;
    if (before && (stage.started_at_ms !== null || began !== null)) {
      if (before.status !== "completed")
        out.push(`${at} began, yet the stage before (${before.name}) is ${before.status}`);
      for (const slot of slotsOf(before)) {
        const end = task(slot)?.completed_at_ms;
        const first = Math.min(began ?? Infinity, stage.started_at_ms ?? Infinity);
        if (end === null) out.push(`${at} began while ${before.name}/${slot.name} still ran`);
        else if (end !== undefined && end > first)
          out.push(`${at} began at ${first}, before ${before.name}/${slot.name} ended at ${end}`);
      }
    }
    const ordered = (earlier: ChainAgentRun, later: ChainAgentRun) => {
      const start = task(later)?.created_at_ms;
      const end = task(earlier)?.completed_at_ms;
      if (start === undefined || end === undefined) return;
      if (end === null || end > start)
        out.push(`${at}: ${later.name} began before ${earlier.name} ended`);
    };
    if (!chain.stages[i]?.parallel)
      for (const [j, slot] of stage.agents.entries()) {
        const earlier = stage.agents[j - 1];
        if (earlier) ordered(earlier, slot);
      }
    if (stage.synthesis) for (const slot of stage.agents) ordered(slot, stage.synthesis);
  });
  return out;
}

/**
 * (3) A finished run: every completed stage has its output, nothing is left running or
 * pending; completed means every stage completed; failed carries an error naming its stage.
 */
function finishedShape(run: ChainRunRecord): string[] {
  if (!FINISHED.has(run.status)) return [];
  const out: string[] = [];
  const at = `${run.status} chain run ${run.id}`;
  if (run.completed_at_ms === null) out.push(`${at} has no end time`);
  if (run.pending_approvals.length > 0) out.push(`${at} still lists approvals`);
  for (const stage of run.stages) {
    if (stage.status === "completed" && stage.output === null)
      out.push(`${at}: stage ${stage.name} completed without an output`);
    if (["pending", "running", "awaiting_approval"].includes(stage.status))
      out.push(`${at}: stage ${stage.name} is still ${stage.status}`);
  }
  if (run.status === "completed") {
    if (run.error) out.push(`${at} has an error: ${run.error.message}`);
    for (const stage of run.stages)
      if (stage.status !== "completed") out.push(`${at}: stage ${stage.name} is ${stage.status}`);
  }
  if (run.status === "failed") {
    const named = run.stages.findIndex((s) => s.name === run.error?.stage);
    const failedStage = run.stages.find((s) => s.status === "failed");
    if (!run.error) out.push(`${at} has no error`);
    else if (run.error.stage !== null && named === -1)
      out.push(`${at} names no stage of its own: '${run.error.stage}'`);
    else if (failedStage && failedStage.name !== run.error.stage)
      out.push(`${at}: stage ${failedStage.name} failed, yet the error names ${run.error.stage}`);
    else if (run.error.stage !== null && !failedStage && run.score?.passed !== false)
      out.push(`${at} names stage ${run.error.stage}, which neither failed nor scored too low`);
    run.stages.slice(0, Math.max(0, named)).forEach((stage) => {
      if (stage.status !== "completed")
        out.push(`${at}: stage ${stage.name}, before the failed one, is ${stage.status}`);
    });
  }
  if (run.status === "cancelled" && !run.cancel_requested)
    out.push(`${at} ended as cancelled, yet nobody asked for it`);
  return out;
}

/** (4) The score is the one in the scorer's answer; a completed run passed its minimum. */
function scored(run: ChainRunRecord, chain: ChainDefinition): string[] {
  const last = chain.stages.at(-1);
  const stage = run.stages.at(-1);
  if (!last?.scoring || !stage) return [];
  const out: string[] = [];
  const at = `${run.status} chain run ${run.id}`;
  const min = last.scoring.min_score;
  if (run.status === "completed") {
    const value = run.score?.value;
    if (typeof value !== "number") out.push(`${at} completed with no score`);
    else if (min !== null && value < min) out.push(`${at} completed with score ${value} < ${min}`);
    if (run.score && !run.score.passed) out.push(`${at} completed with a score that did not pass`);
  }
  // A scorer that answered: its stage completed, or failed on the score it gave (or did not).
  if (stage.output === null || !["completed", "failed"].includes(stage.status)) return out;
  const parsed = parseScore(stage.output);
  if (parsed === null) {
    if (run.status !== "failed") out.push(`${at}: its scorer gave no score, yet it ${run.status}`);
    if (run.score?.value !== null || run.score.passed)
      out.push(`${at}: its scorer gave no score, yet it records ${JSON.stringify(run.score)}`);
  } else if (run.score?.value !== parsed) {
    out.push(`${at}: its scorer said ${parsed}, yet it records ${JSON.stringify(run.score)}`);
  }
  return out;
}

/** (5) An `any` stage of a completed run had at least one agent that completed. */
function anySucceeded(run: ChainRunRecord, chain: ChainDefinition): string[] {
  if (run.status !== "completed") return [];
  return chain.stages.flatMap((spec, i) => {
    const stage = run.stages[i];
    if (spec.success !== "any" || !stage) return [];
    return stage.agents.some((agent) => agent.status === "completed")
      ? []
      : [`completed chain run ${run.id}: no agent of its 'any' stage ${stage.name} completed`];
  });
}

/** (6) Once the world is quiet, no run is unfinished and no stage agent is still at work. */
async function leftAtWork(
  world: SimWorld,
  run: ChainRunRecord,
  agents: readonly StageAgent[],
): Promise<string[]> {
  const out: string[] = [];
  if (!FINISHED.has(run.status)) out.push(`chain run ${run.id} is still ${run.status}`);
  for (const { slot, record, taskRuns } of agents) {
    if (!record) continue;
    const session = await world.disk.loadSession(record.id);
    const who = `stage agent ${slot.name} (${record.id}) of ${run.status} chain run ${run.id}`;
    if (session && !SETTLED.has(session.phase)) out.push(`${who} is still ${session.phase}`);
    if (taskRuns.some((r) => r.status === "running")) out.push(`${who} never ended its task run`);
  }
  return out;
}
