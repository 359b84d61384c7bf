import { z } from "zod";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { instantMs } from "../core/instant.js";
import { BlockPatchBody } from "../records/core-block.js";
import type { CoreBlock, Passage } from "../records/memory-records.js";
import { agentState, requireAgent, type ServiceContext } from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import { type AgentStateView, type BlockView, blockView, passageView } from "./letta-views.js";
import type { ListQuery } from "./requests.js";

export { instantMs };

/** A date-time as Letta's clients send it: `2026-01-31T12:00:00Z` (UTC when no offset). */
export const Instant = z
  .string()
  .max(100)
  .refine((text) => !Number.isNaN(instantMs(text)), "expected an ISO 8601 date-time");

const Tag = z.string().min(1).max(200);

/** `POST /v1/agents/{id}/archival-memory`. */
export const CreatePassageRequest = z.object({
  text: z.string().min(1).max(1_000_000),
  tags: z.array(Tag).max(100).nullish(),
  created_at: Instant.nullish(),
});
export type CreatePassageRequest = z.infer<typeof CreatePassageRequest>;

/** `PATCH /v1/agents/{id}/core-memory/blocks/{label}`: the one block patch (`records/core-block.ts`). */
export const BlockPatch = BlockPatchBody;
export type BlockPatch = BlockPatchBody;

/** How `GET …/archival-memory` lists: oldest first by default, optionally filtered by words. */
export interface PassageListOptions {
  after?: string | undefined;
  before?: string | undefined;
  limit: number;
  ascending: boolean;
  search?: string | undefined;
}

/** How `GET …/archival-memory/search` searches and filters. */
export interface PassageSearchOptions {
  query: string;
  topK: number;
  tags: readonly string[];
  tagMatchMode: "any" | "all";
  startMs?: number | undefined;
  endMs?: number | undefined;
}

export interface ArchivalSearchResult {
  count: number;
  results: { id: string; content: string; timestamp: string; tags: string[] }[];
}

/** Letta's Passage; `embedding_config` is required by its schema, and Holdfast has none. */
function passageOut(passage: Passage, agentId: string) {
  return { ...passageView(passage, agentId), embedding_config: null };
}
export type PassageOut = ReturnType<typeof passageOut>;

/** Core blocks and archival passages of agents, as Letta's API sees them. */
export class MemoryService {
  constructor(protected readonly ctx: ServiceContext) {}

  async listBlocks(projectId: string, agentId: string, query: ListQuery): Promise<BlockView[]> {
    await requireAgent(this.ctx, projectId, agentId);
    return pageOf(await this.ctx.store.loadBlocks(agentId), query).map(blockView);
  }

  async getBlock(projectId: string, agentId: string, label: string): Promise<BlockView> {
    await requireAgent(this.ctx, projectId, agentId);
    return blockView(await this.#block(agentId, label));
  }

  /**
   * Edits a block within its (new) limit, between the agent's turns; every agent sharing the
   * block sees the edit on its next turn (a turn in flight rebases its own edit on it).
   */
  async updateBlock(
    projectId: string,
    agentId: string,
    label: string,
    body: BlockPatch,
  ): Promise<BlockView> {
    await requireAgent(this.ctx, projectId, agentId);
    const { label: newLabel, ...fields } = body;
    if (newLabel != null && newLabel !== label) {
      const message =
        "a block keeps its label: renaming is not supported; create a block with the new " +
        "label (memory_blocks) and copy its value";
      throw new ValidationError("invalid block", [{ path: "label", message }]);
    }
    const blocks = await this.ctx.engine.editBlocks(agentId, { kind: "update", label, ...fields });
    const updated = blocks.find((block) => block.label === label);
    if (!updated) throw new NotFoundError("block", label);
    return blockView(updated);
  }

  /**
   * Attaches the block `blockId` of the project (standalone, or another agent's) to this
   * agent: both read and edit the one block from their next turn on.
   */
  async attachBlock(projectId: string, agentId: string, blockId: string): Promise<AgentStateView> {
    const agent = await requireAgent(this.ctx, projectId, agentId);
    if (!(await this.ctx.store.blocks.get(projectId, blockId))) {
      throw new NotFoundError("block", blockId);
    }
    await this.ctx.store.blocks.attach(agentId, blockId);
    return agentState(this.ctx, agent);
  }

  /** Detaches the block `blockId` from this agent; the block stays for the others. */
  async detachBlock(projectId: string, agentId: string, blockId: string): Promise<AgentStateView> {
    const agent = await requireAgent(this.ctx, projectId, agentId);
    await this.ctx.engine.editBlocks(agentId, { kind: "detach", blockId });
    return agentState(this.ctx, agent);
  }

  async insertPassage(
    projectId: string,
    agentId: string,
    body: CreatePassageRequest,
  ): Promise<PassageOut[]> {
    await requireAgent(this.ctx, projectId, agentId);
    const passage: Passage = {
      id: this.ctx.ids.next("passage"),
      text: body.text,
      tags: [...new Set(body.tags ?? [])],
      created_at_ms: body.created_at ? instantMs(body.created_at) : this.ctx.clock.now(),
    };
    await this.ctx.store.insertPassages(agentId, [passage]);
    return [passageOut(passage, agentId)];
  }

  /** A page of passages; `search` keeps those holding every one of its words (any case). */
  async listPassages(
    projectId: string,
    agentId: string,
    options: PassageListOptions,
  ): Promise<PassageOut[]> {
    await requireAgent(this.ctx, projectId, agentId);
    const page = {
      after: options.after,
      before: options.before,
      limit: options.limit,
      order: options.ascending ? ("asc" as const) : ("desc" as const),
    };
    const containing = (options.search ?? "").split(/\s+/).filter(Boolean);
    const passages = await this.ctx.store.listPassages(agentId, page, { containing });
    return passages.map((passage) => passageOut(passage, agentId));
  }

  /**
   * Hybrid search (BM25 fused with vectors where the agent has an embedding model; full-text
   * alone otherwise), with Letta's filters: tags (`any` or `all`) and
   * the creation time range, both ends included.
   */
  async searchPassages(
    projectId: string,
    agentId: string,
    options: PassageSearchOptions,
  ): Promise<ArchivalSearchResult> {
    await requireAgent(this.ctx, projectId, agentId);
    const { tags, startMs, endMs } = options;
    const filter =
      tags.length === 0 ? {} : options.tagMatchMode === "any" ? { anyTags: tags } : { tags };
    const ranked = await this.ctx.store.searchPassages(agentId, options.query, {
      topK: options.topK,
      ...filter,
      ...(startMs === undefined ? {} : { fromMs: startMs }),
      ...(endMs === undefined ? {} : { toMs: endMs }),
    });
    const results = ranked.map((passage) => ({
      id: passage.id,
      content: passage.text,
      timestamp: new Date(passage.created_at_ms).toISOString(),
      tags: passage.tags,
    }));
    return { count: results.length, results };
  }

  async deletePassage(projectId: string, agentId: string, passageId: string): Promise<void> {
    await requireAgent(this.ctx, projectId, agentId);
    const deleted = await this.ctx.store.deletePassage(agentId, passageId);
    if (!deleted) throw new NotFoundError("passage", passageId);
  }

  async #block(agentId: string, label: string): Promise<CoreBlock> {
    const blocks = await this.ctx.store.loadBlocks(agentId);
    const block = blocks.find((candidate) => candidate.label === label);
    if (!block) {
      const labels = blocks.map((candidate) => candidate.label);
      throw new NotFoundError("block label", label, labels);
    }
    return block;
  }
}
