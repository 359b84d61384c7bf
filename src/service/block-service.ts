import { z } from "zod";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { patchBlock } from "../memory/block-edit.js";
import {
  type BlockPatchBody,
  type BlockView,
  blockView,
  type CreateBlockBody,
  newBlock,
} from "../records/core-block.js";
import type { BlockFilter } from "../storage/block-store.js";
import { agentState, requireAgent, type ServiceContext } from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import type { AgentStateView } from "./letta-views.js";
import type { ListQuery } from "./requests.js";

const Text = z.string().max(10_000);
const Count = z.coerce.number().int().min(0).max(1_000_000);
/** A query key that repeats (`tags=a&tags=b`): one key is a string, several an array. */
const repeated = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).max(100)]);

/**
 * `GET /v1/blocks`: Letta's filters and paging (oldest first by default, as Letta's). Holdfast
 * has no block templates or identities: `templates_only=true`, `name` (a template's name) and
 * the identity filters match no block. `project_id` is accepted; the project is the caller's.
 */
export const BlockListQuery = z.object({
  label: Text.optional(),
  label_search: Text.optional(),
  value_search: Text.optional(),
  description_search: Text.optional(),
  tags: repeated(z.string().min(1).max(200)).optional(),
  match_all_tags: z.enum(["true", "false"]).default("false"),
  connected_to_agents_count_gt: Count.optional(),
  connected_to_agents_count_lt: Count.optional(),
  connected_to_agents_count_eq: repeated(Count).optional(),
  templates_only: z.enum(["true", "false"]).default("false"),
  name: Text.optional(),
  identity_id: Text.optional(),
  identifier_keys: repeated(Text).optional(),
  project_id: Text.optional(),
  after: z.string().max(200).optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  order: z.enum(["asc", "desc"]).default("asc"),
  order_by: z.literal("created_at").optional(),
});
export type BlockListQuery = z.infer<typeof BlockListQuery>;

const list = <T>(value: T | T[] | undefined): T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/** The store's filter for a list query, or null when no block can match. */
function filterOf(projectId: string, query: BlockListQuery): BlockFilter | null {
  const none = query.templates_only === "true" || query.name !== undefined;
  if (none || query.identity_id !== undefined || query.identifier_keys !== undefined) return null;
  const tags = list(query.tags);
  const exactly = list(query.connected_to_agents_count_eq);
  return {
    projectId,
    ...(query.label !== undefined && { label: query.label }),
    ...(query.label_search !== undefined && { labelSearch: query.label_search }),
    ...(query.value_search !== undefined && { valueSearch: query.value_search }),
    ...(query.description_search !== undefined && { descriptionSearch: query.description_search }),
    ...(tags && { tags, matchAllTags: query.match_all_tags === "true" }),
    ...(query.connected_to_agents_count_gt !== undefined && {
      agentsMoreThan: query.connected_to_agents_count_gt,
    }),
    ...(query.connected_to_agents_count_lt !== undefined && {
      agentsFewerThan: query.connected_to_agents_count_lt,
    }),
    ...(exactly && { agentsExactly: exactly }),
  };
}

/**
 * Letta's `/v1/blocks`: core blocks as entities of a project. A block attached to several
 * agents is one block: an edit here, through one agent's routes or by one agent's memory tools
 * is what every agent sharing it reads on its next turn (decision 024).
 */
export class BlockService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(projectId: string, query: BlockListQuery): Promise<BlockView[]> {
    const filter = filterOf(projectId, query);
    if (!filter) return [];
    const page = {
      after: query.after,
      before: query.before,
      limit: query.limit,
      order: query.order,
    };
    return (await this.ctx.store.blocks.list(filter, page)).map(blockView);
  }

  async create(projectId: string, body: CreateBlockBody): Promise<BlockView> {
    const block = newBlock(this.ctx.ids.next("block"), body);
    if (block.value.length > block.limit) {
      const message = `${block.value.length} characters is over the limit of ${block.limit}`;
      throw new ValidationError("invalid block", [{ path: "value", message }]);
    }
    await this.ctx.store.blocks.create(projectId, block);
    return blockView(block);
  }

  async retrieve(projectId: string, blockId: string): Promise<BlockView> {
    return blockView(await this.#block(projectId, blockId));
  }

  /** Letta's `modify_block`: any field, the label included (refused where an agent has it). */
  async modify(projectId: string, blockId: string, patch: BlockPatchBody): Promise<BlockView> {
    const updated = patchBlock(await this.#block(projectId, blockId), patch);
    await this.ctx.store.blocks.update(projectId, updated);
    return blockView(updated);
  }

  /** Deletes the block and detaches it from every agent. */
  async delete(projectId: string, blockId: string): Promise<void> {
    if (!(await this.ctx.store.blocks.delete(projectId, blockId))) {
      throw new NotFoundError("block", blockId);
    }
  }

  /** The agents the block is attached to (newest first by default, as Letta's). */
  async agents(projectId: string, blockId: string, query: ListQuery): Promise<AgentStateView[]> {
    await this.#block(projectId, blockId);
    const ids = await this.ctx.store.blocks.agentsOf(projectId, blockId);
    const page = pageOf(
      ids.map((id) => ({ id })),
      query,
    );
    const views: AgentStateView[] = [];
    for (const { id } of page) {
      // An agent moved to another project since is not shown here.
      const record = await this.ctx.store.getAgent(id);
      if (record?.project_id !== projectId) continue;
      views.push(await agentState(this.ctx, await requireAgent(this.ctx, projectId, id)));
    }
    return views;
  }

  async #block(projectId: string, blockId: string) {
    const block = await this.ctx.store.blocks.get(projectId, blockId);
    if (!block) throw new NotFoundError("block", blockId);
    return block;
  }
}
