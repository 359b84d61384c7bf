import { z } from "zod";
import { NotFoundError } from "../core/errors.js";
import type { RunRecord } from "../records/agent-record.js";
import type { AgentEvent } from "../runtime/agent-events.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { type LettaMessageView, lettaMessages, type RunView, runView } from "./letta-views.js";
import { ListQuery } from "./requests.js";

/** `GET /v1/runs/`: Letta's filters on top of the usual paging. */
export const RunListQuery = ListQuery.extend({
  agent_id: z.string().max(200).optional(),
  active: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  statuses: z
    .union([z.string().max(50), z.array(z.string().max(50)).max(10)])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .optional(),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

/** `POST /v1/runs/{run_id}/stream`: where a client that dropped its stream picks it up. */
export const RunStreamRequest = z.looseObject({
  starting_after: z.int().min(0).optional(),
});
export type RunStreamRequest = z.infer<typeof RunStreamRequest>;

/** Runs: reading them, their messages, and re-attaching to a run's stream. */
export class RunService {
  constructor(private readonly ctx: ServiceContext) {}

  async get(projectId: string, runId: string): Promise<RunView> {
    return runView(await this.#run(projectId, runId));
  }

  async list(projectId: string, query: RunListQuery): Promise<RunView[]> {
    if (query.agent_id) await requireAgent(this.ctx, projectId, query.agent_id);
    const runs = await this.ctx.store.listRuns(
      {
        projectId,
        ...(query.agent_id ? { agentId: query.agent_id } : {}),
        ...(query.active !== undefined ? { active: query.active } : {}),
        ...(query.statuses ? { statuses: query.statuses } : {}),
      },
      query,
    );
    return runs.map(runView);
  }

  /** The run's messages in order, paged by message id. */
  async messages(projectId: string, runId: string, query: ListQuery): Promise<LettaMessageView[]> {
    await this.#run(projectId, runId);
    const all = lettaMessages(await this.ctx.store.listRunMessages(runId));
    const ordered = query.order === "asc" ? all : [...all].reverse();
    const from = query.after ? ordered.findIndex((m) => m.id === query.after) + 1 : 0;
    const to = query.before ? ordered.findIndex((m) => m.id === query.before) : ordered.length;
    if ((query.after && from === 0) || to < 0) return [];
    return ordered.slice(from, to).slice(0, query.limit);
  }

  /**
   * Re-attaches to a run: the messages after `startingAfter` (a `seq_id`), those still to come,
   * and how the run stopped. Every message is sent once: stored and live ones meet on `seq_id`.
   */
  async stream(
    projectId: string,
    runId: string,
    startingAfter: number,
    write: (event: AgentEvent) => void,
  ): Promise<void> {
    const { agent_id: agentId } = await this.#run(projectId, runId);
    let last = startingAfter;
    const send = (event: AgentEvent) => {
      if (event.type !== "message" || event.from !== undefined) return;
      const seq = event.message.seq_id ?? 0;
      if (seq <= last) return;
      last = seq;
      write(event);
    };
    let live = false;
    const early: AgentEvent[] = [];
    const unsubscribe = this.ctx.engine.subscribe(agentId, (event) => {
      if (event.runId !== runId) return;
      if (live) send(event);
      else early.push(event);
    });
    try {
      const stored = await this.ctx.store.listRunMessages(runId);
      for (const [i, message] of stored.entries()) {
        // Messages stored before runs numbered them count by their place.
        send({
          type: "message",
          message: { ...message, seq_id: message.seq_id ?? i + 1 },
          agentId,
          runId,
        });
      }
      live = true;
      for (const event of early) send(event);
      const outcome = await this.ctx.engine.awaitRun(agentId, runId);
      for (const { agentId: from, message } of outcome.childApprovals) {
        write({ type: "message", message, agentId, runId, from });
      }
      write({ type: "stop", stop_reason: outcome.stopReason, agentId, runId });
      write({ type: "usage", usage: outcome.usage, agentId, runId });
    } finally {
      unsubscribe();
    }
  }

  async #run(projectId: string, runId: string): Promise<RunRecord> {
    const run = await this.ctx.store.getRun(runId);
    const agent = run ? await this.ctx.store.getAgent(run.agent_id) : null;
    if (!run || agent?.project_id !== projectId) throw new NotFoundError("run", runId);
    return run;
  }
}
