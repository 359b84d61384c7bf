import { z } from "zod";
import { priceTable } from "../config/observability-section.js";
import { NotFoundError } from "../core/errors.js";
import type { StepRecord } from "../records/step-record.js";
import type { StepFilter } from "../storage/store.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { ListQuery } from "./requests.js";
import { runUsageView, type StepView, stepView } from "./step-views.js";

const IsoDate = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));

/** `GET /v1/steps`: Letta's filters that Holdfast records (agent, run, model, dates). */
export const StepListQuery = ListQuery.extend({
  agent_id: z.string().max(200).optional(),
  run_id: z.string().max(200).optional(),
  model: z.string().max(200).optional(),
  start_date: IsoDate.optional(),
  end_date: IsoDate.optional(),
});
export type StepListQuery = z.infer<typeof StepListQuery>;

/** Steps: one, a filtered list, a run's steps and a run's usage and cost. */
export class StepService {
  constructor(private readonly ctx: ServiceContext) {}

  get #prices() {
    return priceTable(this.ctx.config.observability);
  }

  async get(projectId: string, stepId: string): Promise<StepView> {
    const step = await this.ctx.store.getStep(stepId);
    const agent = step ? await this.ctx.store.getAgent(step.agent_id) : null;
    if (!step || agent?.project_id !== projectId) throw new NotFoundError("step", stepId);
    return stepView(step, this.#prices);
  }

  async list(projectId: string, query: StepListQuery): Promise<StepView[]> {
    if (query.agent_id) await requireAgent(this.ctx, projectId, query.agent_id);
    const filter: StepFilter = {
      projectId,
      ...(query.agent_id !== undefined && { agentId: query.agent_id }),
      ...(query.run_id !== undefined && { runId: query.run_id }),
      ...(query.model !== undefined && { model: query.model }),
      ...(query.start_date !== undefined && { fromMs: query.start_date }),
      ...(query.end_date !== undefined && { toMs: query.end_date }),
    };
    const steps = await this.ctx.store.listSteps(filter, query);
    return steps.map((step) => stepView(step, this.#prices));
  }

  /** A run's steps (the run must be the project's), paged. */
  async ofRun(projectId: string, runId: string, query: ListQuery): Promise<StepView[]> {
    await this.#requireRun(projectId, runId);
    const steps = await this.ctx.store.listSteps({ projectId, runId }, query);
    return steps.map((step) => stepView(step, this.#prices));
  }

  async usage(projectId: string, runId: string) {
    await this.#requireRun(projectId, runId);
    const all: StepRecord[] = [];
    for (;;) {
      const after = all.at(-1)?.id;
      const page = await this.ctx.store.listSteps(
        { projectId, runId },
        { order: "asc", limit: 1000, ...(after !== undefined && { after }) },
      );
      all.push(...page);
      if (page.length < 1000) break;
    }
    return runUsageView(all, this.#prices);
  }

  async #requireRun(projectId: string, runId: string): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    const agent = run ? await this.ctx.store.getAgent(run.agent_id) : null;
    if (!run || agent?.project_id !== projectId) throw new NotFoundError("run", runId);
  }
}
