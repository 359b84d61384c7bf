import type { ChainAgentSpec } from "../config/chain-definition.js";
import type { HoldfastConfig } from "../config/config-file.js";
import type { Clock } from "../core/clock.js";
import { ConflictError, HoldfastError, ValidationError } from "../core/errors.js";
import type { IdSource } from "../core/ids.js";
import type { ChainAgentRun } from "../records/chain-run.js";
import type { Engine, RunOutcome } from "../runtime/engine.js";
import { newAgent } from "../runtime/new-agent.js";
import type { Store } from "../storage/store.js";
import { approvalsOf, verdictOf } from "./agent-output.js";
import type { ChainEvents } from "./chain-events.js";
import { stageAgentIds } from "./chain-record.js";
import type { ChainRunState } from "./chain-run-state.js";
import { retrying } from "./retrying.js";

export interface ChainParts {
  readonly store: Store;
  readonly engine: Engine;
  readonly config: HoldfastConfig;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly events: ChainEvents;
  /** Aborted when the runner stops: nothing more is retried. */
  readonly signal: AbortSignal;
}

/** How a stage agent ended, as its slot in the run records it. */
export type AgentEnd = "completed" | "failed" | "cancelled" | "skipped";

const ENDED: ReadonlySet<string> = new Set(["completed", "failed", "cancelled", "skipped"]);

/**
 * Runs one stage agent to its end: creates it (once: its id is derived from the run), sends
 * its task with an idempotency key (a restart is answered from the run it started), follows
 * it through approvals, and records what it produced. Its events are relayed to the run's
 * listeners, tagged with its stage and name.
 */
export async function runStageAgent(
  parts: ChainParts,
  state: ChainRunState,
  at: {
    stageIndex: number;
    spec: ChainAgentSpec;
    slot: ChainAgentRun;
    task: () => string;
    /** Whether the stage no longer needs this agent (`any` has its success). */
    unwanted: () => boolean;
  },
): Promise<AgentEnd> {
  const { slot, spec, stageIndex } = at;
  if (ENDED.has(slot.status)) return slot.status as AgentEnd;
  const stage = state.stage(stageIndex).name;
  const ids = stageAgentIds(state.id, stage, spec.name);
  const { engine, clock } = parts;
  const unsubscribe = engine.subscribe(ids.agentId, (event) => {
    if (event.type === "message" && slot.status === "awaiting_approval") {
      // Answered through the agent's own API: the run goes on.
      state.updateAgent(stageIndex, slot, { status: "running" });
    }
    if (event.type === "message" && event.message.message_type === "user_message") {
      // A cancel asked for before this task started must reach it now.
      if (state.current.cancel_requested || at.unwanted()) {
        void engine.cancel(ids.agentId).catch(() => false);
      }
    }
    if (parts.events.listening(state.id)) {
      parts.events.publish({
        type: "agent_event",
        runId: state.id,
        stage,
        agentName: spec.name,
        event,
      });
    }
  });
  try {
    await ensureAgent(parts, state, stage, spec, ids.agentId);
    if (slot.status === "pending" && (state.current.cancel_requested || at.unwanted())) {
      state.updateAgent(stageIndex, slot, { status: "skipped" });
      return "skipped";
    }
    state.updateAgent(stageIndex, slot, {
      status: "running",
      run_id: ids.runId,
      started_at_ms: slot.started_at_ms ?? clock.now(),
    });
    // Stored before the task goes out: a restart must never find an agent of this stage at
    // work while the record still shows the stage before it unfinished (then cancelled).
    await state.flush();
    const input = { content: at.task(), otid: ids.otid };
    const send = () => engine.send(ids.agentId, input, { runId: ids.runId });
    let outcome = await retrying(clock, send, parts.signal);
    // Sent before a restart: the run may still be going on (its sub-agents at work).
    if (outcome.duplicate && outcome.runId)
      outcome = await engine.awaitRun(ids.agentId, outcome.runId);
    for (;;) {
      const verdict = verdictOf(outcome);
      if (verdict.kind !== "awaiting_approval") {
        await state.setApprovals(stage, spec.name, []);
        state.addUsage(outcome.usage);
        const end = verdict.kind;
        state.updateAgent(stageIndex, slot, {
          status: end,
          stop_reason: outcome.stopReason,
          output: verdict.kind === "completed" ? verdict.output.text : null,
          output_source: verdict.kind === "completed" ? verdict.output.source : null,
          error: verdict.kind === "failed" ? verdict.error : null,
          usage: outcome.usage,
          ended_at_ms: clock.now(),
        });
        return end;
      }
      const next = nextStop(engine, ids.agentId, outcome.runId ?? ids.runId);
      next.catch(() => undefined);
      state.updateAgent(stageIndex, slot, {
        status: "awaiting_approval",
        stop_reason: outcome.stopReason,
      });
      const approvals = approvalsOf(outcome, ids.agentId);
      const tagged = approvals.map((a) => ({ ...a, stage, agent_name: spec.name }));
      await state.setApprovals(stage, spec.name, tagged);
      outcome = await next;
      if (slot.status === "awaiting_approval")
        state.updateAgent(stageIndex, slot, { status: "running" });
    }
  } catch (error) {
    if (!(error instanceof HoldfastError) || error.retryable) throw error;
    // Retrying cannot help (the agent was deleted, its type removed): the agent failed.
    await state.setApprovals(stage, spec.name, []);
    state.updateAgent(stageIndex, slot, {
      status: "failed",
      error: error.message,
      ended_at_ms: clock.now(),
    });
    return "failed";
  } finally {
    unsubscribe();
  }
}

/** The outcome of the run's next stop (it ended, or asks for another approval). */
function nextStop(engine: Engine, agentId: string, runId: string): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const unsubscribe = engine.subscribe(agentId, (event) => {
      if (event.type !== "stop" || event.runId !== runId) return;
      unsubscribe();
      engine.awaitRun(agentId, runId).then(resolve, reject);
    });
  });
}

async function ensureAgent(
  parts: ChainParts,
  state: ChainRunState,
  stage: string,
  spec: ChainAgentSpec,
  agentId: string,
): Promise<void> {
  if (await parts.store.getAgent(agentId)) return;
  const type = parts.config.registry.get(spec.type);
  if (!type) {
    const message = `agent type '${spec.type}' is no longer configured`;
    throw new ValidationError(message, [{ path: "type", message }]);
  }
  const run = state.current;
  const created = newAgent(
    {
      id: agentId,
      name: `${run.chain}-${stage}-${spec.name}`,
      projectId: run.project_id,
      type,
      overrides: spec.overrides,
      tags: ["chain", `chain:${run.chain}`],
      metadata: { chain: run.chain, chain_run_id: run.id, stage, role: spec.role },
    },
    parts.ids,
    parts.clock.now(),
  );
  try {
    await retrying(parts.clock, () => parts.store.createAgent(created), parts.signal);
  } catch (error) {
    // A write that failed after it was kept: the agent exists, which is all we need.
    if (!(error instanceof ConflictError) || !(await parts.store.getAgent(agentId))) throw error;
  }
}
