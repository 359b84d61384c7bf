import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { CoreBlock } from "../../records/core-block.js";
import type { MemoryChanges } from "../../records/memory-records.js";
import { mergeBlockWrite } from "../block-merge.js";
import type { BlockFilter, BlockStore } from "../block-store.js";
import type { PageQuery } from "../store.js";
import { parseInput } from "../store-rows.js";
import type { SqliteHistory } from "./history.js";
import { bodies, body, changed, pageBounds, seqFrom, text } from "./rows.js";

/** Runs work in one transaction of the store (mapping errors), given an agent that must exist. */
export type InTransaction = <T>(work: () => T, agentId?: string) => T;

const STATEMENTS = {
  insert: "INSERT INTO core_blocks (id, project_id, owner_id, body) VALUES (?, ?, ?, ?)",
  deleteOwned: `DELETE FROM core_blocks WHERE owner_id = ?1 AND NOT EXISTS (
    SELECT 1 FROM agent_blocks AS ab WHERE ab.block_id = core_blocks.id AND ab.agent_id <> ?1)`,
  get: "SELECT project_id, body FROM core_blocks WHERE id = ?",
  seq: "SELECT seq FROM core_blocks WHERE id = ? AND project_id = ?",
  set: "UPDATE core_blocks SET body = ? WHERE id = ?",
  delete: "DELETE FROM core_blocks WHERE id = ?",
  attach: "INSERT INTO agent_blocks (agent_id, block_id, label) VALUES (?, ?, ?)",
  relabel: "UPDATE agent_blocks SET label = ? WHERE block_id = ?",
  detach: "DELETE FROM agent_blocks WHERE agent_id = ? AND label = ?",
  agentsOf: "SELECT agent_id FROM agent_blocks WHERE block_id = ? ORDER BY seq",
  byLabel: `SELECT b.body FROM agent_blocks AS ab JOIN core_blocks AS b ON b.id = ab.block_id
    WHERE ab.agent_id = ? AND ab.label = ?`,
  load: `SELECT b.body FROM agent_blocks AS ab JOIN core_blocks AS b ON b.id = ab.block_id
    WHERE ab.agent_id = ? ORDER BY ab.seq`,
  agentProject: "SELECT project_id FROM agents WHERE id = ?",
} as const;

/**
 * The SQLite store's blocks: `core_blocks` holds each block once, `agent_blocks` which agents
 * it is attached to (migration 11). Writes run inside the store's transactions.
 */
export class SqliteBlocks implements BlockStore {
  private readonly sql: Record<keyof typeof STATEMENTS, StatementSync>;

  constructor(
    private readonly db: DatabaseSync,
    private readonly history: SqliteHistory,
    private readonly transaction: InTransaction,
  ) {
    const entries = Object.entries(STATEMENTS).map(([name, sql]) => [name, db.prepare(sql)]);
    this.sql = Object.fromEntries(entries) as Record<keyof typeof STATEMENTS, StatementSync>;
  }

  async create(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    this.transaction(() => this.sql.insert.run(parsed.id, projectId, null, JSON.stringify(parsed)));
  }

  async get(projectId: string, blockId: string): Promise<CoreBlock | null> {
    const row = this.sql.get.get(blockId);
    return row && text(row, "project_id") === projectId ? body(row, CoreBlock, "block") : null;
  }

  async list(filter: BlockFilter, page: PageQuery): Promise<CoreBlock[]> {
    const bounds = pageBounds(page, (id) => seqFrom(this.sql.seq, id, filter.projectId));
    if (!bounds) return [];
    const { where, params } = filterSql(filter);
    const order = page.order === "asc" ? "ASC" : "DESC";
    const statement = this.db.prepare(
      `SELECT b.body FROM core_blocks AS b WHERE b.project_id = ? AND b.seq > ? AND b.seq < ?
      ${where} ORDER BY b.seq ${order} LIMIT ?`,
    );
    const rows = statement.all(
      filter.projectId,
      bounds.lower,
      bounds.upper,
      ...params,
      bounds.limit,
    );
    return bodies(rows, CoreBlock, "block");
  }

  async update(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    this.transaction(() => {
      const stored = this.stored(projectId, parsed.id);
      this.write(stored, parsed);
    });
  }

  async delete(projectId: string, blockId: string): Promise<boolean> {
    return this.transaction(() => {
      const row = this.sql.get.get(blockId);
      if (!row || text(row, "project_id") !== projectId) return false;
      const block = body(row, CoreBlock, "block") as CoreBlock;
      for (const agentId of this.agentIds(blockId)) {
        this.history.edited(agentId, [{ kind: "block_deleted", label: block.label }]);
      }
      return changed(this.sql.delete.run(blockId));
    });
  }

  async agentsOf(projectId: string, blockId: string): Promise<string[]> {
    return (await this.get(projectId, blockId)) ? this.agentIds(blockId) : [];
  }

  async attach(agentId: string, blockId: string): Promise<void> {
    this.transaction(() => {
      const project = this.sql.agentProject.get(agentId);
      if (!project) throw new NotFoundError("agent", agentId);
      const block = this.stored(text(project, "project_id"), blockId);
      if (this.agentIds(blockId).includes(agentId)) {
        throw new ConflictError(`block '${blockId}' is already attached to agent '${agentId}'`);
      }
      this.checkLabelFree(agentId, block.label);
      this.sql.attach.run(agentId, blockId, block.label);
      this.history.edited(agentId, [{ kind: "block", block }]);
    }, agentId);
  }

  /** The agent's blocks, in the order attached. */
  load(agentId: string): CoreBlock[] {
    return bodies(this.sql.load.all(agentId), CoreBlock, "block");
  }

  /** Inside a transaction: a deleted agent's own blocks go, unless another agent shares them. */
  forgetAgent(agentId: string): void {
    this.sql.deleteOwned.run(agentId);
  }

  /** Inside a transaction: a new agent's own blocks, created and attached. */
  createFor(agentId: string, projectId: string, blocks: readonly CoreBlock[]): void {
    for (const block of blocks) {
      this.sql.insert.run(block.id, projectId, agentId, JSON.stringify(block));
      this.sql.attach.run(agentId, block.id, block.label);
    }
  }

  /** `Store.putBlock`: in its own transaction. */
  put(agentId: string, block: CoreBlock): void {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    this.transaction(() => {
      const project = this.sql.agentProject.get(agentId);
      if (!project) throw new NotFoundError("agent", agentId);
      const row = this.sql.get.get(parsed.id);
      if (row && this.agentIds(parsed.id).includes(agentId)) {
        this.write(body(row, CoreBlock, "block") as CoreBlock, parsed);
        return;
      }
      this.checkLabelFree(agentId, parsed.label);
      this.createFor(agentId, text(project, "project_id"), [parsed]);
      this.history.edited(agentId, [{ kind: "block", block: parsed }]);
    }, agentId);
  }

  /** `Store.detachBlock`: in its own transaction. */
  detach(agentId: string, label: string): boolean {
    return this.transaction(() => {
      const detached = changed(this.sql.detach.run(agentId, label));
      if (detached) this.history.edited(agentId, [{ kind: "block_deleted", label }]);
      return detached;
    });
  }

  /**
   * Inside a commit's transaction: the step's block edits, each rebased on the block as
   * stored (`block-merge.ts`) and recorded in the history of every other agent sharing it.
   * A block deleted meanwhile is not written again. Returns the blocks as written.
   */
  commitEdits(agentId: string, memory: MemoryChanges): CoreBlock[] {
    const written: CoreBlock[] = [];
    for (const edited of memory.blocks) {
      const row = this.sql.get.get(edited.id);
      if (!row) continue;
      const stored = body(row, CoreBlock, "block") as CoreBlock;
      const merged = mergeBlockWrite(stored, edited, memory.bases?.[edited.id]);
      this.sql.set.run(JSON.stringify(merged), merged.id);
      for (const other of this.agentIds(merged.id)) {
        if (other !== agentId) this.history.edited(other, [{ kind: "block", block: merged }]);
      }
      written.push(merged);
    }
    return written;
  }

  /** Writes a block's new fields over the stored ones, with every attached agent's history. */
  private write(stored: CoreBlock, block: CoreBlock): void {
    const agents = this.agentIds(block.id);
    if (block.label !== stored.label) {
      for (const agentId of agents) this.checkLabelFree(agentId, block.label);
      this.sql.relabel.run(block.label, block.id);
    }
    this.sql.set.run(JSON.stringify(block), block.id);
    for (const agentId of agents) {
      const changes =
        block.label === stored.label
          ? [{ kind: "block" as const, block }]
          : [
              { kind: "block_deleted" as const, label: stored.label },
              { kind: "block" as const, block },
            ];
      this.history.edited(agentId, changes);
    }
  }

  private stored(projectId: string, blockId: string): CoreBlock {
    const row = this.sql.get.get(blockId);
    if (!row || text(row, "project_id") !== projectId) throw new NotFoundError("block", blockId);
    return body(row, CoreBlock, "block") as CoreBlock;
  }

  private checkLabelFree(agentId: string, label: string): void {
    if (this.sql.byLabel.get(agentId, label)) {
      throw new ConflictError(
        `agent '${agentId}' already has a block labelled '${label}'; detach it first`,
      );
    }
  }

  private agentIds(blockId: string): string[] {
    return this.sql.agentsOf.all(blockId).map((row) => text(row, "agent_id"));
  }
}

/** The SQL conditions and parameters of a block filter (after the project and page bounds). */
function filterSql(filter: BlockFilter): { where: string; params: SQLInputValue[] } {
  const parts: string[] = [];
  const params: SQLInputValue[] = [];
  const add = (sql: string, ...values: SQLInputValue[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (filter.label !== undefined) add("json_extract(b.body, '$.label') = ?", filter.label);
  const search = (field: string, part: string | undefined) => {
    if (part !== undefined)
      add(`instr(lower(json_extract(b.body, '$.${field}')), lower(?)) > 0`, part);
  };
  search("label", filter.labelSearch);
  search("value", filter.valueSearch);
  search("description", filter.descriptionSearch);
  if (filter.tags && filter.tags.length > 0) {
    const hits = `(SELECT count(DISTINCT t.value) FROM json_each(b.body, '$.tags') AS t
      WHERE t.value IN (SELECT value FROM json_each(?)))`;
    const need = filter.matchAllTags ? new Set(filter.tags).size : 1;
    add(`${hits} >= ?`, JSON.stringify(filter.tags), need);
  }
  const agents = "(SELECT count(*) FROM agent_blocks AS ab WHERE ab.block_id = b.id)";
  if (filter.agentsMoreThan !== undefined) add(`${agents} > ?`, filter.agentsMoreThan);
  if (filter.agentsFewerThan !== undefined) add(`${agents} < ?`, filter.agentsFewerThan);
  if (filter.agentsExactly && filter.agentsExactly.length > 0) {
    add(`${agents} IN (SELECT value FROM json_each(?))`, JSON.stringify(filter.agentsExactly));
  }
  return { where: parts.map((part) => `AND ${part}`).join(" "), params };
}
