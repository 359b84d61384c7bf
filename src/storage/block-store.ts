import type { CoreBlock } from "../records/core-block.js";
import type { PageQuery } from "./store.js";

/**
 * Which of a project's blocks a list keeps (Letta's `GET /v1/blocks` filters). Searches are
 * substrings, any case; `agentsMoreThan` / `agentsFewerThan` / `agentsExactly` count the
 * agents a block is attached to.
 */
export interface BlockFilter {
  projectId: string;
  label?: string;
  labelSearch?: string;
  valueSearch?: string;
  descriptionSearch?: string;
  /** Blocks with any of these tags, or all of them with `matchAllTags`. */
  tags?: readonly string[];
  matchAllTags?: boolean;
  agentsMoreThan?: number;
  agentsFewerThan?: number;
  agentsExactly?: readonly number[];
}

/**
 * Core blocks as entities of their own (Letta's `/v1/blocks`). A block belongs to one project
 * and is attached to any number of that project's agents; every agent it is attached to reads
 * the one stored block, so an edit through any of them, or through the API, is what the others
 * read on their next turn. An agent's own blocks (made with it) are blocks like any other.
 *
 * Writes reject with `ValidationError` for an invalid block, `NotFoundError` for a block or
 * agent that does not exist in the project, and `ConflictError` for a taken id or a label the
 * agent already has.
 */
export interface BlockStore {
  /** Stores a new block, attached to no agent. */
  create(projectId: string, block: CoreBlock): Promise<void>;
  get(projectId: string, blockId: string): Promise<CoreBlock | null>;
  /** The project's blocks in creation order, paged like every list, filtered by `filter`. */
  list(filter: BlockFilter, page: PageQuery): Promise<CoreBlock[]>;
  /**
   * Replaces the block's fields (its id stays); every agent attached to it sees the change,
   * and each one's memory history records it. A new label another attached agent already
   * has is a conflict.
   */
  update(projectId: string, block: CoreBlock): Promise<void>;
  /** Deletes the block and detaches it from every agent; false if there was none. */
  delete(projectId: string, blockId: string): Promise<boolean>;
  /** The ids of the agents the block is attached to, in the order they were attached. */
  agentsOf(projectId: string, blockId: string): Promise<string[]>;
  /** Attaches a block of the agent's project to the agent (at the end of its blocks). */
  attach(agentId: string, blockId: string): Promise<void>;
}

/** Whether a block passes a filter (the in-memory store's, and a reference for the others). */
export function blockMatches(filter: BlockFilter, block: CoreBlock, agents: number): boolean {
  const has = (text: string, part: string | undefined) =>
    part === undefined || text.toLowerCase().includes(part.toLowerCase());
  if (filter.label !== undefined && block.label !== filter.label) return false;
  if (!has(block.label, filter.labelSearch) || !has(block.value, filter.valueSearch)) return false;
  if (!has(block.description, filter.descriptionSearch)) return false;
  const tags = block.tags ?? [];
  if (filter.tags && filter.tags.length > 0) {
    const hits = filter.tags.filter((tag) => tags.includes(tag)).length;
    if (filter.matchAllTags ? hits < filter.tags.length : hits === 0) return false;
  }
  if (filter.agentsMoreThan !== undefined && !(agents > filter.agentsMoreThan)) return false;
  if (filter.agentsFewerThan !== undefined && !(agents < filter.agentsFewerThan)) return false;
  if (filter.agentsExactly && filter.agentsExactly.length > 0) {
    if (!filter.agentsExactly.includes(agents)) return false;
  }
  return true;
}
