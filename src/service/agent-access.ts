import type { HoldfastConfig } from "../config/config-file.js";
import type { Clock } from "../core/clock.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { IdSource } from "../core/ids.js";
import { embeddingHandleProblem } from "../llm/embedding-model.js";
import type { ModelAdapter } from "../llm/model.js";
import { type AgentChange, StaleChangeError } from "../records/agent-change.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { Embeddings } from "../runtime/embeddings.js";
import type { Engine } from "../runtime/engine.js";
import type { Store } from "../storage/store.js";
import type { AgentType } from "../types/agent-type.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import { embeddingHandleOf } from "../types/embedding-handle.js";
import { AgentOverrides } from "../types/overrides.js";
import { agentRunState } from "./agent-run-state.js";
import type { FolderEmbedding } from "./folder-embedding.js";
import { folderView } from "./folder-views.js";
import { agentStateView } from "./letta-views.js";

/** What every service operation works with. */
export interface ServiceContext {
  readonly store: Store;
  readonly engine: Engine;
  readonly config: HoldfastConfig;
  readonly ids: IdSource;
  readonly clock: Clock;
  /** The model of agents whose type and overrides name none. */
  readonly defaultModel: string;
  modelFor(handle: string): ModelAdapter;
  /** Why a model handle cannot be used (a bad handle, a missing key), or undefined if it can. */
  checkModel(handle: string): string | undefined;
  /** Why an embedding handle cannot be used (bad handle, missing key), or undefined if it can. */
  checkEmbedding?(handle: string): string | undefined;
  /** Background embedding of memory, where hybrid search is wired (the server). */
  readonly embeddings?: Embeddings;
  /** Background embedding of folders' chunks, where the server wires it. */
  readonly folderEmbedding?: FolderEmbedding;
  /** Tells the cluster's other processes that the stored MCP servers changed (Restate engine). */
  mcpServersChanged?(): Promise<void>;
}

/** Why an agent cannot use this embedding model, or undefined if it can. */
export function checkEmbedding(ctx: ServiceContext, handle: string): string | undefined {
  return embeddingHandleProblem(handle) ?? ctx.checkEmbedding?.(handle);
}

/** An agent of the caller's project, with its type and overrides resolved. */
export interface ResolvedAgent {
  record: AgentRecord;
  type: AgentType;
  overrides: AgentOverrides;
}

/**
 * The agent `agentId` as the project `projectId` may see it. An agent of another project is
 * reported exactly like a missing one, so ids reveal nothing across tenants.
 */
export async function requireAgent(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
): Promise<ResolvedAgent> {
  const record = await ctx.store.getAgent(agentId);
  if (!record || record.project_id !== projectId) throw new NotFoundError("agent", agentId);
  const type = ctx.config.registry.get(record.agent_type);
  if (!type) throw new NotFoundError("agent type", record.agent_type, ctx.config.registry.names());
  const parsed = AgentOverrides.safeParse(record.overrides);
  if (!parsed.success)
    throw new ValidationError("stored overrides are invalid", fieldErrorsFromZod(parsed.error));
  return { record, type, overrides: parsed.data };
}

/** Letta's AgentState of a resolved agent. */
export async function agentState(
  ctx: ServiceContext,
  agent: ResolvedAgent,
  include: readonly string[] = [],
) {
  const { catalogue } = ctx.config;
  const capabilities = effectiveCapabilities(agent.type, agent.overrides, catalogue);
  const modelHandle = capabilities.model ?? ctx.defaultModel;
  const tools = capabilities.offered.flatMap((grant) => catalogue.tools.get(grant.name) ?? []);
  return agentStateView({
    record: agent.record,
    systemPrompt: agent.overrides.system_prompt ?? agent.type.system_prompt,
    capabilities,
    modelHandle,
    contextWindow: ctx.modelFor(modelHandle).contextWindow,
    blocks: await ctx.store.loadBlocks(agent.record.id),
    tools,
    runState: await agentRunState(ctx.store, agent.record.project_id, agent.record.id, include),
    embedding: embeddingHandleOf(agent.type, agent.overrides),
    embeddingStatus: (await ctx.embeddings?.queue.progress(agent.record.id)) ?? null,
    sources: await attachedFolders(ctx, agent.record.id),
  });
}

/** The folders attached to the agent, as Letta's `sources`. */
async function attachedFolders(ctx: ServiceContext, agentId: string) {
  const ids = await ctx.store.folders.agentFolders(agentId);
  const found = await Promise.all(ids.map((id) => ctx.store.folders.getFolder(id)));
  return found.flatMap((folder) => (folder ? [folderView(folder)] : []));
}

/**
 * Changes an agent's record from what it is now: reads it, computes the change, and has the
 * engine apply it only if nobody changed the record meanwhile; else reads again and retries,
 * so two changes at once never lose each other.
 */
export async function changeAgent<T extends Omit<AgentChange, "expectUpdatedAtMs">>(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
  compute: (agent: ResolvedAgent) => T,
): Promise<{ agent: ResolvedAgent; change: T; record: AgentRecord }> {
  for (let attempt = 1; ; attempt++) {
    const agent = await requireAgent(ctx, projectId, agentId);
    const change = compute(agent);
    try {
      const expectUpdatedAtMs = agent.record.updated_at_ms;
      const record = await ctx.engine.updateAgent(agentId, { ...change, expectUpdatedAtMs });
      return { agent, change, record };
    } catch (error) {
      if (!(error instanceof StaleChangeError) || attempt >= 10) throw error;
    }
  }
}
