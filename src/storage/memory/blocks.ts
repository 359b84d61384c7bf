import { ConflictError, NotFoundError } from "../../core/errors.js";
import { CoreBlock } from "../../records/core-block.js";
import type { MemoryChange } from "../../records/memory-history.js";
import type { MemoryChanges } from "../../records/memory-records.js";
import { mergeBlockWrite } from "../block-merge.js";
import { type BlockFilter, type BlockStore, blockMatches } from "../block-store.js";
import type { PageQuery } from "../store.js";
import { parseInput } from "../store-rows.js";
import type { InMemoryHistory } from "./history.js";
import { copy, pageOf } from "./rows.js";

/** What the blocks need to know of an agent: its project and how many messages it has. */
export interface BlockOwner {
  projectId: string;
  messages: number;
}

interface StoredBlock {
  projectId: string;
  block: CoreBlock;
  /** Ids of the agents it is attached to, in the order attached. */
  agents: string[];
  /** The agent it was made with, if any: deleted with it unless another agent shares it. */
  owner?: string;
}

/**
 * The in-memory store's blocks, as SQLite keeps them: each block once, with the agents it is
 * attached to. Every write checks everything before changing anything.
 */
export class InMemoryBlocks implements BlockStore {
  /** In creation order (a Map keeps insertion order). */
  private readonly blocks = new Map<string, StoredBlock>();
  /** Each agent's block ids, in the order attached. */
  private readonly attached = new Map<string, string[]>();

  constructor(
    private readonly owner: (agentId: string) => BlockOwner | undefined,
    private readonly history: InMemoryHistory,
  ) {}

  async create(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = copy(parseInput(CoreBlock, block, ["block"]));
    if (this.blocks.has(parsed.id)) throw new ConflictError(`block '${parsed.id}' already exists`);
    this.blocks.set(parsed.id, { projectId, block: parsed, agents: [] });
  }

  async get(projectId: string, blockId: string): Promise<CoreBlock | null> {
    const stored = this.blocks.get(blockId);
    return stored && stored.projectId === projectId ? copy(stored.block) : null;
  }

  async list(filter: BlockFilter, page: PageQuery): Promise<CoreBlock[]> {
    const all = [...this.blocks.values()]
      .filter((s) => s.projectId === filter.projectId)
      .map((stored) => ({ id: stored.block.id, stored }));
    const keep = ({ stored }: { stored: StoredBlock }) =>
      blockMatches(filter, stored.block, stored.agents.length);
    return pageOf(all, page, keep).map(({ stored }) => copy(stored.block));
  }

  async update(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = copy(parseInput(CoreBlock, block, ["block"]));
    this.write(this.stored(projectId, parsed.id), parsed);
  }

  async delete(projectId: string, blockId: string): Promise<boolean> {
    const stored = this.blocks.get(blockId);
    if (!stored || stored.projectId !== projectId) return false;
    for (const agentId of stored.agents) {
      this.detachId(agentId, blockId);
      this.record(agentId, [{ kind: "block_deleted", label: stored.block.label }]);
    }
    this.blocks.delete(blockId);
    return true;
  }

  async agentsOf(projectId: string, blockId: string): Promise<string[]> {
    const stored = this.blocks.get(blockId);
    return stored && stored.projectId === projectId ? [...stored.agents] : [];
  }

  async attach(agentId: string, blockId: string): Promise<void> {
    const owner = this.owner(agentId);
    if (!owner) throw new NotFoundError("agent", agentId);
    const stored = this.stored(owner.projectId, blockId);
    if (stored.agents.includes(agentId)) {
      throw new ConflictError(`block '${blockId}' is already attached to agent '${agentId}'`);
    }
    this.checkLabelFree(agentId, stored.block.label);
    this.link(agentId, stored);
    this.record(agentId, [{ kind: "block", block: copy(stored.block) }]);
  }

  load(agentId: string): CoreBlock[] {
    return (this.attached.get(agentId) ?? []).flatMap((id) => {
      const stored = this.blocks.get(id);
      return stored ? [copy(stored.block)] : [];
    });
  }

  /** A new agent's own blocks (already validated), created and attached. */
  createFor(agentId: string, projectId: string, blocks: readonly CoreBlock[]): void {
    for (const block of blocks) {
      if (this.blocks.has(block.id)) throw new ConflictError(`block '${block.id}' already exists`);
    }
    for (const block of blocks) {
      const stored = { projectId, block: copy(block), agents: [], owner: agentId };
      this.blocks.set(block.id, stored);
      this.link(agentId, stored);
    }
  }

  put(agentId: string, block: CoreBlock): void {
    const parsed = copy(parseInput(CoreBlock, block, ["block"]));
    const owner = this.owner(agentId);
    if (!owner) throw new NotFoundError("agent", agentId);
    const stored = this.blocks.get(parsed.id);
    if (stored?.agents.includes(agentId)) {
      this.write(stored, parsed);
      return;
    }
    if (stored) throw new ConflictError(`block '${parsed.id}' already exists`);
    this.checkLabelFree(agentId, parsed.label);
    this.createFor(agentId, owner.projectId, [parsed]);
    this.record(agentId, [{ kind: "block", block: copy(parsed) }]);
  }

  detach(agentId: string, label: string): boolean {
    const block = this.load(agentId).find((candidate) => candidate.label === label);
    if (!block) return false;
    this.detachId(agentId, block.id);
    const stored = this.blocks.get(block.id);
    if (stored) stored.agents = stored.agents.filter((id) => id !== agentId);
    this.record(agentId, [{ kind: "block_deleted", label }]);
    return true;
  }

  /** Checks a commit's block edits; returns a function that writes them (and the blocks). */
  prepareCommit(
    agentId: string,
    memory: MemoryChanges,
  ): { blocks: CoreBlock[]; write: () => void } {
    const merged = memory.blocks.flatMap((edited) => {
      const stored = this.blocks.get(edited.id);
      return stored
        ? [{ stored, block: mergeBlockWrite(stored.block, edited, memory.bases?.[edited.id]) }]
        : [];
    });
    const write = () => {
      for (const { stored, block } of merged) {
        stored.block = copy(block);
        for (const other of stored.agents) {
          if (other !== agentId) this.record(other, [{ kind: "block", block: copy(block) }]);
        }
      }
    };
    return { blocks: merged.map(({ block }) => block), write };
  }

  /** Forgets a deleted agent's attachments, and its own blocks no other agent shares. */
  forgetAgent(agentId: string): void {
    for (const id of this.attached.get(agentId) ?? []) {
      const stored = this.blocks.get(id);
      if (stored) stored.agents = stored.agents.filter((other) => other !== agentId);
    }
    for (const [id, stored] of this.blocks) {
      if (stored.owner === agentId && stored.agents.length === 0) this.blocks.delete(id);
    }
    this.attached.delete(agentId);
  }

  private write(stored: StoredBlock, block: CoreBlock): void {
    const relabel = block.label !== stored.block.label;
    if (relabel) for (const agentId of stored.agents) this.checkLabelFree(agentId, block.label);
    const old = stored.block.label;
    stored.block = block;
    for (const agentId of stored.agents) {
      const changes: MemoryChange[] = relabel
        ? [
            { kind: "block_deleted", label: old },
            { kind: "block", block: copy(block) },
          ]
        : [{ kind: "block", block: copy(block) }];
      this.record(agentId, changes);
    }
  }

  private stored(projectId: string, blockId: string): StoredBlock {
    const stored = this.blocks.get(blockId);
    if (!stored || stored.projectId !== projectId) throw new NotFoundError("block", blockId);
    return stored;
  }

  private link(agentId: string, stored: StoredBlock): void {
    stored.agents.push(agentId);
    this.attached.set(agentId, [...(this.attached.get(agentId) ?? []), stored.block.id]);
  }

  private detachId(agentId: string, blockId: string): void {
    const ids = (this.attached.get(agentId) ?? []).filter((id) => id !== blockId);
    this.attached.set(agentId, ids);
  }

  private checkLabelFree(agentId: string, label: string): void {
    if (this.load(agentId).some((block) => block.label === label)) {
      throw new ConflictError(
        `agent '${agentId}' already has a block labelled '${label}'; detach it first`,
      );
    }
  }

  private record(agentId: string, changes: readonly MemoryChange[]): void {
    const owner = this.owner(agentId);
    if (owner) this.history.edited(agentId, changes, owner.messages);
  }
}
