import { z } from "zod";
import type { ChainEventListener } from "../chains/chain-events.js";
import type { ChainRunner } from "../chains/chain-runner.js";
import type { ChainAgentSpec, ChainDefinition } from "../config/chain-definition.js";
import { type FieldError, NotFoundError, ValidationError } from "../core/errors.js";
import type { ChainRunRecord } from "../records/chain-run.js";
import type { ServiceContext } from "./agent-access.js";
import { ListQuery } from "./requests.js";

/** `POST /v1/chains/{name}/runs`. */
export const StartChainRequest = z.object({
  input: z.string().min(1).max(200_000),
  /** Answer with the run at once (202) instead of when it stops. */
  background: z.boolean().optional(),
  /** Stream every stage agent's events (SSE) instead of one JSON answer. */
  stream: z.boolean().optional(),
  /** With `stream`: assistant and reasoning text token by token. */
  stream_tokens: z.boolean().optional(),
});
export type StartChainRequest = z.infer<typeof StartChainRequest>;

export const ChainRunListQuery = ListQuery.extend({ chain: z.string().max(64).optional() });
export type ChainRunListQuery = z.infer<typeof ChainRunListQuery>;

/** `POST /v1/chain-runs/{id}/approvals`: Letta's approval fields, by tool call. */
export const ChainApprovalRequest = z.object({
  approvals: z
    .array(
      z.object({
        tool_call_id: z.string().min(1).max(200),
        approve: z.boolean(),
        reason: z.string().max(10_000).nullish(),
      }),
    )
    .min(1)
    .max(100),
});
export type ChainApprovalRequest = z.infer<typeof ChainApprovalRequest>;

export type ChainRunView = Omit<ChainRunRecord, "project_id" | "cancel_requested">;

export interface ChainAgentView {
  name: string;
  role: ChainAgentSpec["role"];
  agent_type: string;
  model: string | null;
}

export interface ChainView {
  name: string;
  description: string;
  stages: {
    name: string;
    description: string;
    parallel: boolean;
    success: "all" | "any";
    agents: ChainAgentView[];
    synthesis: ChainAgentView | null;
    min_score: number | null;
  }[];
}

/** Chains: what is configured, and runs of them in the caller's project. */
export class ChainService {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly runner: ChainRunner,
  ) {}

  list(): ChainView[] {
    return [...this.ctx.config.chains.values()].map((chain) => this.#view(chain));
  }

  get(name: string): ChainView {
    return this.#view(this.#chain(name));
  }

  /** Starts a run; every model its agents would use is checked first (422 by field). */
  async start(projectId: string, name: string, request: StartChainRequest): Promise<ChainRunView> {
    const chain = this.#chain(name);
    const errors: FieldError[] = [];
    chain.stages.forEach((stage, s) => {
      const specs = [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])];
      specs.forEach((spec, a) => {
        const problem = this.ctx.checkModel(this.#model(spec));
        const where = spec.role === "synthesis" ? "synthesis" : `agents.${a}`;
        if (problem) errors.push({ path: `chain.stages.${s}.${where}.model`, message: problem });
      });
    });
    if (errors.length > 0) {
      throw new ValidationError(`chain '${name}' cannot run: a model is not ready`, errors);
    }
    return view(await this.runner.start(projectId, chain, request.input));
  }

  async getRun(projectId: string, runId: string): Promise<ChainRunView> {
    return view(await this.#run(projectId, runId));
  }

  async listRuns(projectId: string, query: ChainRunListQuery): Promise<ChainRunView[]> {
    const filter = { projectId, ...(query.chain ? { chain: query.chain } : {}) };
    const runs = await this.ctx.store.listChainRuns(filter, query);
    return Promise.all(runs.map(async (run) => view((await this.runner.get(run.id)) ?? run)));
  }

  /** Resolves when the run ended or waits for an approval. */
  async settled(projectId: string, runId: string): Promise<ChainRunView> {
    await this.#run(projectId, runId);
    return view(await this.runner.settled(runId));
  }

  async cancel(projectId: string, runId: string): Promise<ChainRunView> {
    await this.#run(projectId, runId);
    if (await this.runner.cancel(runId)) return view(await this.runner.settled(runId, true));
    return this.getRun(projectId, runId);
  }

  async approve(
    projectId: string,
    runId: string,
    request: ChainApprovalRequest,
  ): Promise<ChainRunView> {
    await this.#run(projectId, runId);
    const decisions = request.approvals.map((a) => ({ ...a, reason: a.reason ?? null }));
    await this.runner.approve(runId, decisions);
    return this.settled(projectId, runId);
  }

  /** Follows the run: its events until it settles; false if it is not being driven. */
  subscribe(runId: string, listener: ChainEventListener): () => void {
    return this.runner.subscribe(runId, listener);
  }

  driving(runId: string): boolean {
    return this.runner.driving(runId);
  }

  /** Resolves when the run has ended (read from the store while another process drives it). */
  async ended(runId: string): Promise<void> {
    await this.runner.settled(runId, true);
  }

  async #run(projectId: string, runId: string): Promise<ChainRunRecord> {
    const run = await this.runner.get(runId);
    if (!run || run.project_id !== projectId) throw new NotFoundError("chain run", runId);
    return run;
  }

  #chain(name: string): ChainDefinition {
    const chain = this.ctx.config.chains.get(name);
    if (!chain) throw new NotFoundError("chain", name, [...this.ctx.config.chains.keys()]);
    return chain;
  }

  #model(spec: ChainAgentSpec): string {
    return (
      spec.overrides.model ??
      this.ctx.config.registry.get(spec.type)?.model ??
      this.ctx.defaultModel
    );
  }

  #view(chain: ChainDefinition): ChainView {
    const agent = (spec: ChainAgentSpec): ChainAgentView => ({
      name: spec.name,
      role: spec.role,
      agent_type: spec.type,
      model: this.#model(spec),
    });
    return {
      name: chain.name,
      description: chain.description,
      stages: chain.stages.map((stage) => ({
        name: stage.name,
        description: stage.description,
        parallel: stage.parallel,
        success: stage.success,
        agents: stage.agents.map(agent),
        synthesis: stage.synthesis ? agent(stage.synthesis) : null,
        min_score: stage.scoring?.min_score ?? null,
      })),
    };
  }
}

function view(run: ChainRunRecord): ChainRunView {
  const { project_id: _project, cancel_requested: _cancel, ...shown } = run;
  return shown;
}
