import type pg from "pg";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { CoreBlock } from "../../records/core-block.js";
import type { MemoryChange } from "../../records/memory-history.js";
import type { MemoryChanges } from "../../records/memory-records.js";
import { mergeBlockWrite } from "../block-merge.js";
import type { BlockFilter, BlockStore } from "../block-store.js";
import type { PageQuery } from "../store.js";
import { parseInput } from "../store-rows.js";
import { rememberEdited } from "./history.js";
import { pageBounds } from "./paging.js";
import { inTransaction, type Tx } from "./pool.js";
import { bodies, body, type Row, seqOf, text } from "./rows.js";

const SQL = {
  insert: "INSERT INTO core_blocks (id, project_id, owner_id, body) VALUES ($1, $2, $3, $4)",
  deleteOwned: `DELETE FROM core_blocks WHERE owner_id = $1 AND NOT EXISTS (
    SELECT 1 FROM agent_blocks AS ab WHERE ab.block_id = core_blocks.id AND ab.agent_id <> $1)`,
  get: "SELECT project_id, body FROM core_blocks WHERE id = $1",
  lock: "SELECT project_id, body FROM core_blocks WHERE id = $1 FOR UPDATE",
  seq: "SELECT seq FROM core_blocks WHERE id = $1 AND project_id = $2",
  set: "UPDATE core_blocks SET body = $2 WHERE id = $1",
  delete: "DELETE FROM core_blocks WHERE id = $1",
  attach: "INSERT INTO agent_blocks (agent_id, block_id, label) VALUES ($1, $2, $3)",
  relabel: "UPDATE agent_blocks SET label = $2 WHERE block_id = $1",
  detach: "DELETE FROM agent_blocks WHERE agent_id = $1 AND label = $2",
  agentsOf: "SELECT agent_id FROM agent_blocks WHERE block_id = $1 ORDER BY seq",
  byLabel: "SELECT 1 FROM agent_blocks WHERE agent_id = $1 AND label = $2",
  load: `SELECT b.body FROM agent_blocks AS ab JOIN core_blocks AS b ON b.id = ab.block_id
    WHERE ab.agent_id = $1 ORDER BY ab.seq`,
  agentProject: "SELECT project_id FROM agents WHERE id = $1",
} as const;

type Db = Pick<Tx, "query">;

/**
 * The PostgreSQL store's blocks, as SQLite keeps them (`core_blocks` once per block,
 * `agent_blocks` for attachments). Writes lock the block's row (`FOR UPDATE`), so two servers
 * writing one shared block take turns and the second rebases on the first.
 */
export class PostgresBlocks implements BlockStore {
  constructor(private readonly pool: pg.Pool) {}

  private tx<T>(work: (tx: Tx) => Promise<T>, agentId?: string): Promise<T> {
    return inTransaction(this.pool, work, agentId);
  }

  async create(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    await this.tx((tx) =>
      tx.query(SQL.insert, [parsed.id, projectId, null, JSON.stringify(parsed)]),
    );
  }

  async get(projectId: string, blockId: string): Promise<CoreBlock | null> {
    const row = (await this.pool.query(SQL.get, [blockId])).rows[0] as Row | undefined;
    return row && text(row, "project_id") === projectId ? body(row, CoreBlock, "block") : null;
  }

  async list(filter: BlockFilter, page: PageQuery): Promise<CoreBlock[]> {
    const bounds = await pageBounds(page, async (id) =>
      seqOf((await this.pool.query(SQL.seq, [id, filter.projectId])).rows[0]),
    );
    if (!bounds) return [];
    const params: unknown[] = [filter.projectId, bounds.lower, bounds.upper];
    const where = filterSql(filter, params);
    params.push(bounds.limit);
    const order = page.order === "asc" ? "ASC" : "DESC";
    const { rows } = await this.pool.query(
      `SELECT b.body FROM core_blocks AS b WHERE b.project_id = $1 AND b.seq > $2 AND b.seq < $3
      ${where} ORDER BY b.seq ${order} LIMIT $${params.length}`,
      params,
    );
    return bodies(rows, CoreBlock, "block");
  }

  async update(projectId: string, block: CoreBlock): Promise<void> {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    await this.tx(async (tx) => write(tx, await locked(tx, projectId, parsed.id), parsed));
  }

  async delete(projectId: string, blockId: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const row = (await tx.query(SQL.lock, [blockId])).rows[0] as Row | undefined;
      if (!row || text(row, "project_id") !== projectId) return false;
      const block = body(row, CoreBlock, "block") as CoreBlock;
      for (const agentId of await agentIds(tx, blockId)) {
        await rememberEdited(tx, agentId, [{ kind: "block_deleted", label: block.label }]);
      }
      await tx.query(SQL.delete, [blockId]);
      return true;
    });
  }

  async agentsOf(projectId: string, blockId: string): Promise<string[]> {
    return (await this.get(projectId, blockId)) ? agentIds(this.pool, blockId) : [];
  }

  async attach(agentId: string, blockId: string): Promise<void> {
    await this.tx(async (tx) => {
      const block = await locked(tx, await projectOf(tx, agentId), blockId);
      if ((await agentIds(tx, blockId)).includes(agentId)) {
        throw new ConflictError(`block '${blockId}' is already attached to agent '${agentId}'`);
      }
      await checkLabelFree(tx, agentId, block.label);
      await tx.query(SQL.attach, [agentId, blockId, block.label]);
      await rememberEdited(tx, agentId, [{ kind: "block", block }]);
    }, agentId);
  }

  async load(agentId: string): Promise<CoreBlock[]> {
    return bodies((await this.pool.query(SQL.load, [agentId])).rows, CoreBlock, "block");
  }

  /** `Store.putBlock`. */
  async put(agentId: string, block: CoreBlock): Promise<void> {
    const parsed = parseInput(CoreBlock, block, ["block"]);
    await this.tx(async (tx) => {
      const projectId = await projectOf(tx, agentId);
      const row = (await tx.query(SQL.lock, [parsed.id])).rows[0] as Row | undefined;
      if (row && (await agentIds(tx, parsed.id)).includes(agentId)) {
        return write(tx, body(row, CoreBlock, "block") as CoreBlock, parsed);
      }
      await checkLabelFree(tx, agentId, parsed.label);
      await createFor(tx, agentId, projectId, [parsed]);
      await rememberEdited(tx, agentId, [{ kind: "block", block: parsed }]);
    }, agentId);
  }

  /** `Store.detachBlock`. */
  async detach(agentId: string, label: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const detached = ((await tx.query(SQL.detach, [agentId, label])).rowCount ?? 0) > 0;
      if (detached) await rememberEdited(tx, agentId, [{ kind: "block_deleted", label }]);
      return detached;
    });
  }
}

/** Inside a transaction: a deleted agent's own blocks go, unless another agent shares them. */
export async function forgetAgent(tx: Db, agentId: string): Promise<void> {
  await tx.query(SQL.deleteOwned, [agentId]);
}

/** Inside a transaction: a new agent's own blocks, created and attached. */
export async function createFor(
  tx: Db,
  agentId: string,
  projectId: string,
  blocks: readonly CoreBlock[],
): Promise<void> {
  for (const block of blocks) {
    await tx.query(SQL.insert, [block.id, projectId, agentId, JSON.stringify(block)]);
    await tx.query(SQL.attach, [agentId, block.id, block.label]);
  }
}

/**
 * Inside a commit's transaction: the step's block edits rebased on the blocks as stored (rows
 * locked until the commit ends; `block-merge.ts`), recorded in the history of every other
 * agent sharing them. A block deleted meanwhile is left out. Returns the blocks to write.
 */
export async function mergeEdits(
  tx: Tx,
  agentId: string,
  memory: MemoryChanges,
): Promise<CoreBlock[]> {
  const merged: CoreBlock[] = [];
  for (const edited of memory.blocks) {
    const row = (await tx.query(SQL.lock, [edited.id])).rows[0] as Row | undefined;
    if (!row) continue;
    const stored = body(row, CoreBlock, "block") as CoreBlock;
    const block = mergeBlockWrite(stored, edited, memory.bases?.[edited.id]);
    for (const other of await agentIds(tx, block.id)) {
      if (other !== agentId) await rememberEdited(tx, other, [{ kind: "block", block }]);
    }
    merged.push(block);
  }
  return merged;
}

async function write(tx: Tx, stored: CoreBlock, block: CoreBlock): Promise<void> {
  const agents = await agentIds(tx, block.id);
  const relabel = block.label !== stored.label;
  if (relabel) {
    for (const agentId of agents) await checkLabelFree(tx, agentId, block.label);
    await tx.query(SQL.relabel, [block.id, block.label]);
  }
  await tx.query(SQL.set, [block.id, JSON.stringify(block)]);
  for (const agentId of agents) {
    const changes: MemoryChange[] = relabel
      ? [
          { kind: "block_deleted", label: stored.label },
          { kind: "block", block },
        ]
      : [{ kind: "block", block }];
    await rememberEdited(tx, agentId, changes);
  }
}

async function locked(tx: Db, projectId: string, blockId: string): Promise<CoreBlock> {
  const row = (await tx.query(SQL.lock, [blockId])).rows[0] as Row | undefined;
  if (!row || text(row, "project_id") !== projectId) throw new NotFoundError("block", blockId);
  return body(row, CoreBlock, "block") as CoreBlock;
}

async function projectOf(tx: Db, agentId: string): Promise<string> {
  const row = (await tx.query(SQL.agentProject, [agentId])).rows[0] as Row | undefined;
  if (!row) throw new NotFoundError("agent", agentId);
  return text(row, "project_id");
}

async function checkLabelFree(tx: Db, agentId: string, label: string): Promise<void> {
  if ((await tx.query(SQL.byLabel, [agentId, label])).rows.length > 0) {
    throw new ConflictError(
      `agent '${agentId}' already has a block labelled '${label}'; detach it first`,
    );
  }
}

async function agentIds(db: Db, blockId: string): Promise<string[]> {
  return (await db.query(SQL.agentsOf, [blockId])).rows.map((row: Row) => text(row, "agent_id"));
}

/** The SQL conditions of a block filter, pushing their parameters onto `params`. */
function filterSql(filter: BlockFilter, params: unknown[]): string {
  const parts: string[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.label !== undefined) parts.push(`b.body ->> 'label' = ${param(filter.label)}`);
  const search = (field: string, part: string | undefined) => {
    if (part === undefined) return;
    parts.push(`strpos(lower(b.body ->> '${field}'), lower(${param(part)})) > 0`);
  };
  search("label", filter.labelSearch);
  search("value", filter.valueSearch);
  search("description", filter.descriptionSearch);
  if (filter.tags && filter.tags.length > 0) {
    const tags = `coalesce(b.body -> 'tags', '[]'::jsonb)`;
    const wanted = `${param(JSON.stringify([...new Set(filter.tags)]))}::jsonb`;
    parts.push(
      filter.matchAllTags
        ? `${tags} @> ${wanted}`
        : `EXISTS (SELECT 1 FROM jsonb_array_elements_text(${wanted}) AS t WHERE ${tags} ? t)`,
    );
  }
  const agents = "(SELECT count(*) FROM agent_blocks AS ab WHERE ab.block_id = b.id)";
  if (filter.agentsMoreThan !== undefined)
    parts.push(`${agents} > ${param(filter.agentsMoreThan)}`);
  if (filter.agentsFewerThan !== undefined)
    parts.push(`${agents} < ${param(filter.agentsFewerThan)}`);
  if (filter.agentsExactly && filter.agentsExactly.length > 0) {
    parts.push(`${agents} = ANY (${param([...filter.agentsExactly])}::bigint[])`);
  }
  return parts.map((part) => `AND ${part}`).join(" ");
}
