import type { ChainAgentSpec, ChainDefinition } from "../config/chain-definition.js";
import { derivedId } from "../core/ids.js";
import type { ChainAgentRun, ChainRunRecord, ChainStageRun } from "../records/chain-run.js";

/**
 * The ids of a stage agent and of its task's run, derived from the chain run, its stage and
 * the agent's name: after a restart the run finds the same agent, and the task (sent with the
 * same idempotency key) is answered from the run it started, never run twice.
 */
export function stageAgentIds(runId: string, stage: string, name: string) {
  return {
    agentId: derivedId("agent", runId, stage, name),
    runId: derivedId("run", runId, stage, name),
    otid: `chain:${runId}:${stage}:${name}`,
  };
}

function agentRun(runId: string, stage: string, spec: ChainAgentSpec): ChainAgentRun {
  return {
    name: spec.name,
    role: spec.role,
    agent_id: stageAgentIds(runId, stage, spec.name).agentId,
    agent_type: spec.type,
    status: "pending",
    run_id: null,
    stop_reason: null,
    output: null,
    output_source: null,
    error: null,
    usage: null,
    started_at_ms: null,
    ended_at_ms: null,
  };
}

/** A new chain run: every stage and agent pending, nothing spent. */
export function newChainRun(
  chain: ChainDefinition,
  run: { id: string; projectId: string; input: string; nowMs: number },
): ChainRunRecord {
  const stages: ChainStageRun[] = chain.stages.map((stage) => ({
    name: stage.name,
    status: "pending",
    agents: stage.agents.map((spec) => agentRun(run.id, stage.name, spec)),
    synthesis: stage.synthesis ? agentRun(run.id, stage.name, stage.synthesis) : null,
    output: null,
    error: null,
    started_at_ms: null,
    ended_at_ms: null,
  }));
  return {
    id: run.id,
    project_id: run.projectId,
    chain: chain.name,
    input: run.input,
    status: "running",
    stages,
    pending_approvals: [],
    score: null,
    error: null,
    cancel_requested: false,
    usage: { prompt_tokens: 0, completion_tokens: 0, step_count: 0 },
    created_at_ms: run.nowMs,
    updated_at_ms: run.nowMs,
    completed_at_ms: null,
  };
}
