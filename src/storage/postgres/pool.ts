import pg from "pg";
import { NotFoundError } from "../../core/errors.js";
import type { Durability } from "../durability.js";
import { migrate } from "./migrations.js";
import { type Row, seqOf, storageError } from "./rows.js";
import { SQL } from "./statements.js";

/** How a PostgreSQL store connects. */
export interface PostgresStoreOptions {
  /** Connections kept open at most (default 10): commits of different agents run in parallel. */
  poolSize?: number;
  /** The schema Holdfast's tables live in (default `holdfast`); created if missing. */
  schema?: string;
  /**
   * `full` (default): the server's own `synchronous_commit` (normally `on`: flushed, and
   * replicated if the server is set to). `normal`: `synchronous_commit = off` for this
   * store's sessions: a commit is acknowledged before its WAL is flushed, so a crash of the
   * PostgreSQL server (not of Holdfast) may lose the last fraction of a second of commits.
   */
  durability?: Durability;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_SCHEMA = "holdfast";
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A client checked out of the pool, inside a transaction. */
export type Tx = pg.PoolClient;

/** Opens a pool whose sessions use the schema (migrated to the latest version). */
export async function openPool(url: string, options: PostgresStoreOptions): Promise<pg.Pool> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`schema '${schema}' must be lowercase letters, digits and _ (at most 63)`);
  }
  // Session settings given at connection start (the schema name needs no quoting: see above).
  const settings = [`-c search_path=${schema}`];
  if (options.durability === "normal") settings.push("-c synchronous_commit=off");
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    application_name: "holdfast",
    options: settings.join(" "),
  });
  // An idle client's connection dropping must not crash the process; the next query reports it.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, schema);
    } finally {
      client.release();
    }
    return pool;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/**
 * Runs `work` in one transaction on one pooled connection; on any error rolls back and maps
 * the error. Given the id of an agent that must exist, a missing agent is reported before
 * anything else, and `work` gets the agent's key (its `seq`, which marks its search terms).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (tx: Tx, agentKey: number) => Promise<T>,
  agentId?: string,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw storageError(error, agentId);
  }
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const agentKey = agentId === undefined ? 0 : await keyOf(client, agentId);
    if (agentKey === null) throw new NotFoundError("agent", agentId as string);
    const result = await work(client, agentKey);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw storageError(error, agentId);
  } finally {
    // A connection that cannot roll back is dropped rather than handed to the next caller.
    client.release(broken);
  }
}

/** The agent's key, or null if there is no such agent. */
export async function keyOf(
  db: { query(sql: string, params: unknown[]): Promise<{ rows: Row[] }> },
  agentId: string,
): Promise<number | null> {
  const { rows } = await db.query(SQL.agentKey, [agentId]);
  return seqOf(rows[0]);
}
