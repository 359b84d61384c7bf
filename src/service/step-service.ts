import { z } from "zod";
import { priceTable } from "../config/observability-section.js";
import { NotFoundError } from "../core/errors.js";
import { letOthersRun } from "../core/let-others-run.js";
import type { StepRecord } from "../records/step-record.js";
import type { StepFilter } from "../storage/store.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { lettaMessages } from "./letta-views.js";
import { ListQuery } from "./requests.js";
import { runUsageView, type StepView, stepMetricsView, stepView } from "./step-views.js";

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

/** `GET /v1/steps/{id}/messages`: Letta's paging, oldest first by default. */
export const StepMessagesQuery = ListQuery.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  order: z.enum(["asc", "desc"]).default("asc"),
});
export type StepMessagesQuery = z.infer<typeof StepMessagesQuery>;

/** `PATCH /v1/steps/{id}/feedback`. */
export const StepFeedbackRequest = z.object({
  feedback: z.enum(["positive", "negative"]).nullish(),
  tags: z.array(z.string().min(1).max(200)).max(100).nullish(),
});
export type StepFeedbackRequest = z.infer<typeof StepFeedbackRequest>;

/** Steps: one, a filtered list, a run's steps and a run's usage and cost. */
export class StepService {
  constructor(private readonly ctx: ServiceContext) {}

  get #prices() {
    return priceTable(this.ctx.config.observability);
  }

  async get(projectId: string, stepId: string): Promise<StepView> {
    return stepView(await this.#step(projectId, stepId), this.#prices);
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
      await letOthersRun();
    }
    return runUsageView(all, this.#prices);
  }

  /** Letta's `StepMetrics` of a step. */
  async metrics(projectId: string, stepId: string) {
    return stepMetricsView(await this.#step(projectId, stepId));
  }

  /**
   * The messages the step made, as Letta lists them (oldest first by default), paged by id:
   * the step's run's messages that carry its id.
   */
  async messages(projectId: string, stepId: string, query: StepMessagesQuery) {
    const step = await this.#step(projectId, stepId);
    const stored = step.run_id ? await this.ctx.store.listRunMessages(step.run_id) : [];
    const all = lettaMessages(stored.filter((m) => m.step_id === stepId));
    const ordered = query.order === "asc" ? all : [...all].reverse();
    const from = query.after ? ordered.findIndex((m) => m.id === query.after) + 1 : 0;
    const to = query.before ? ordered.findIndex((m) => m.id === query.before) : ordered.length;
    if ((query.after && from === 0) || to < 0) return [];
    return ordered.slice(from, to).slice(0, query.limit);
  }

  /** Letta's `PATCH /v1/steps/{id}/feedback`: sets (or clears) the rating; tags when given. */
  async feedback(projectId: string, stepId: string, body: StepFeedbackRequest) {
    await this.#step(projectId, stepId);
    const tags = body.tags && body.tags.length > 0 ? body.tags : null;
    const updated = await this.ctx.store.setStepFeedback(stepId, body.feedback ?? null, tags);
    if (!updated) throw new NotFoundError("step", stepId);
    return stepView(updated, this.#prices);
  }

  async #step(projectId: string, stepId: string): Promise<StepRecord> {
    const step = await this.ctx.store.getStep(stepId);
    const agent = step ? await this.ctx.store.getAgent(step.agent_id) : null;
    if (!step || agent?.project_id !== projectId) throw new NotFoundError("step", stepId);
    return step;
  }

  async #requireRun(projectId: string, runId: string): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    const agent = run ? await this.ctx.store.getAgent(run.agent_id) : null;
    if (!run || agent?.project_id !== projectId) throw new NotFoundError("run", runId);
  }
}
