import { type FieldError, ValidationError } from "../core/errors.js";
import { uniqueToolRules } from "../records/tool-rule.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import { embeddingHandleOf } from "../types/embedding-handle.js";
import {
  agentState,
  changeAgent,
  checkEmbedding,
  type ResolvedAgent,
  requireAgent,
  type ServiceContext,
} from "./agent-access.js";
import { checkBlockIds, replaceBlocks } from "./agent-blocks.js";
import { type ChildNode, childTree } from "./agent-tree.js";
import { agentFromRequest } from "./create-agent.js";
import type { AgentStateView } from "./letta-views.js";
import type { CreateAgentRequest, ListQuery, UpdateAgentRequest } from "./requests.js";

export interface AgentFilters {
  name?: string | undefined;
  tags?: string[] | undefined;
  matchAllTags?: boolean | undefined;
  queryText?: string | undefined;
}

/** Agents as Letta's API sees them, within one project (tenant). */
export class AgentService {
  constructor(private readonly ctx: ServiceContext) {}

  async create(projectId: string, body: CreateAgentRequest): Promise<AgentStateView> {
    const created = agentFromRequest(this.ctx, projectId, body);
    const shared = await checkBlockIds(this.ctx, projectId, body.block_ids ?? [], created.blocks);
    await this.ctx.store.createAgent(created);
    try {
      for (const block of shared) await this.ctx.store.blocks.attach(created.agent.id, block.id);
    } catch (error) {
      // A block deleted meanwhile: no agent half made.
      await this.ctx.store.deleteAgent(created.agent.id);
      throw error;
    }
    return this.get(projectId, created.agent.id);
  }

  /** The agent's state; `include` adds what Letta adds on request (`agent.pending_approval`). */
  async get(
    projectId: string,
    agentId: string,
    include: readonly string[] = [],
  ): Promise<AgentStateView> {
    return agentState(this.ctx, await requireAgent(this.ctx, projectId, agentId), include);
  }

  async list(
    projectId: string,
    query: ListQuery,
    filters: AgentFilters = {},
    include: readonly string[] = [],
  ): Promise<AgentStateView[]> {
    // The store filters before it pages: a page reads the agents it shows, however many there are.
    const records = await this.ctx.store.listAgents(projectId, query, {
      name: filters.name,
      nameContains: filters.queryText,
      tags: filters.tags,
      matchAllTags: filters.matchAllTags,
    });
    return Promise.all(records.map((record) => this.get(projectId, record.id, include)));
  }

  async update(
    projectId: string,
    agentId: string,
    body: UpdateAgentRequest,
  ): Promise<AgentStateView> {
    const current = await requireAgent(this.ctx, projectId, agentId);
    await refuseFixedFields(this.ctx, current, body);
    if (body.model) {
      const problem = this.ctx.checkModel(body.model);
      if (problem)
        throw new ValidationError("invalid agent", [{ path: "model", message: problem }]);
    }
    if (body.embedding) {
      const problem = checkEmbedding(this.ctx, body.embedding);
      if (problem)
        throw new ValidationError("invalid agent", [{ path: "embedding", message: problem }]);
    }
    // Checked before the record changes: a bad id changes nothing.
    if (body.block_ids) await checkBlockIds(this.ctx, projectId, body.block_ids, []);
    const { agent: before } = await changeAgent(this.ctx, projectId, agentId, (agent) => {
      const overrides = { ...agent.overrides };
      if (body.model) overrides.model = body.model;
      if (body.embedding) overrides.memory = { ...overrides.memory, embedding: body.embedding };
      if (body.system) overrides.system_prompt = body.system;
      // Letta stores `metadata` as sent: a PATCH replaces it, it does not merge into it.
      const metadata = body.metadata ?? agent.record.metadata;
      const description =
        body.description === undefined ? agent.record.description : body.description;
      return {
        description,
        name: body.name ?? agent.record.name,
        overrides,
        tool_rules: body.tool_rules ? uniqueToolRules(body.tool_rules) : agent.record.tool_rules,
        tags: body.tags ?? agent.record.tags,
        metadata,
      };
    });
    // A new embedding model re-embeds the agent's memory, in the background.
    const was = embeddingHandleOf(before.type, before.overrides);
    if (body.embedding && body.embedding !== was) this.ctx.embeddings?.modelChanged(agentId);
    if (body.block_ids) await replaceBlocks(this.ctx, projectId, agentId, body.block_ids);
    return this.get(projectId, agentId);
  }

  /** The sub-agents the agent spawned, as a tree with each one's status. */
  children(projectId: string, agentId: string): Promise<ChildNode[]> {
    return childTree(this.ctx, projectId, agentId);
  }

  async delete(projectId: string, agentId: string): Promise<void> {
    await requireAgent(this.ctx, projectId, agentId);
    await this.ctx.engine.deleteAgent(agentId);
  }
}

/** Letta paging over a list already in creation order (oldest first). */
export function pageOf<T extends { id: string }>(items: readonly T[], query: ListQuery): T[] {
  const ordered = query.order === "asc" ? [...items] : [...items].reverse();
  let start = 0;
  let end = ordered.length;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at === -1) return [];
    start = at + 1;
  }
  if (query.before !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.before);
    if (at === -1) return [];
    end = at;
  }
  return ordered.slice(start, end).slice(0, query.limit);
}

/**
 * Refuses a PATCH that would change what PATCH does not: the agent's type (fixed when it is
 * made) or its tools (`tool_ids`, `tools`: attached and detached by their own routes). The
 * same values, as Letta's clients may send back, pass.
 */
async function refuseFixedFields(
  ctx: ServiceContext,
  agent: ResolvedAgent,
  body: UpdateAgentRequest,
): Promise<void> {
  const errors: FieldError[] = [];
  if (body.agent_type != null && body.agent_type !== agent.record.agent_type) {
    const message = `an agent's type is fixed when it is created (this one is '${agent.record.agent_type}'); create an agent of type '${body.agent_type}' instead`;
    errors.push({ path: "agent_type", message });
  }
  const { catalogue } = ctx.config;
  const offered = new Set(
    effectiveCapabilities(agent.type, agent.overrides, catalogue).offered.map((g) => g.name),
  );
  const nameOf = (id: string) =>
    id.startsWith("tool-") && !catalogue.tools.has(id) ? id.slice(5) : id;
  const sameTools = (names: readonly string[]) =>
    names.length === offered.size && names.every((name) => offered.has(name));
  for (const [field, names] of [
    ["tool_ids", body.tool_ids?.map(nameOf)],
    ["tools", body.tools],
  ] as const) {
    if (names == null || sameTools(names)) continue;
    const message = `tools change through PATCH /v1/agents/{agent_id}/tools/attach/{tool_id} and .../detach/{tool_id}, not here`;
    errors.push({ path: field, message });
  }
  if (errors.length > 0) throw new ValidationError("invalid agent update", errors);
}
