import { type Divergence, replayRun } from "../agent/replay.js";
import { createTurnAgent } from "../agent/turn-agent.js";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { JournalEntry } from "../records/run-journal.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";

/** What `POST /v1/runs/{run_id}/replay` answers. */
export type ReplayView = {
  run_id: string;
  agent_id: string;
  /** The agent's type and tool rules the replay decided with: today's. */
  agent_type: string;
} & ({ matches: true; steps: number; complete: boolean } | ({ matches: false } & Divergence));

/**
 * Replays a recorded run against the agent's type, overrides and tool rules as they are now,
 * from its run journal: no model is called and no tool runs.
 */
export class ReplayService {
  constructor(private readonly ctx: ServiceContext) {}

  /**
   * A run's journal as recorded (`GET /v1/runs/{run_id}/journal`): per step, the tools offered,
   * `tool_choice` and the model's response; tool results; approvals. The run must be the
   * project's. Empty for a run recorded before journals were kept.
   */
  async journal(
    projectId: string,
    runId: string,
  ): Promise<{ run_id: string; agent_id: string; entries: JournalEntry[] }> {
    const run = await this.ctx.store.getRun(runId);
    const agent = run ? await this.ctx.store.getAgent(run.agent_id) : null;
    if (!run || agent?.project_id !== projectId) throw new NotFoundError("run", runId);
    const entries = await this.ctx.store.listRunJournal(runId);
    return { run_id: runId, agent_id: run.agent_id, entries };
  }

  async replay(projectId: string, runId: string): Promise<ReplayView> {
    const run = await this.ctx.store.getRun(runId);
    if (!run) throw new NotFoundError("run", runId);
    const agent = await requireAgent(this.ctx, projectId, run.agent_id);
    const journal = await this.ctx.store.listRunJournal(runId);
    if (journal.length === 0) {
      throw new ConflictError(
        `run '${runId}' has no journal (it was recorded before Holdfast kept run journals), so it cannot be replayed`,
      );
    }
    const today = createTurnAgent({
      id: agent.record.id,
      type: agent.type,
      overrides: agent.overrides,
      rules: agent.record.tool_rules,
      catalogue: this.ctx.config.catalogue,
    });
    const tools = new Map(
      [...this.ctx.config.catalogue.tools].map(([name, declaration]) => [name, { declaration }]),
    );
    const outcome = replayRun(journal, today.config, tools, runId);
    return { run_id: runId, agent_id: run.agent_id, agent_type: agent.type.name, ...outcome };
  }
}
