import { hostname } from "node:os";
import pg from "pg";
import { DatabaseInUseError, type DatabaseLockHolder } from "./database-in-use.js";

/**
 * At most one server writes a Holdfast schema: one activation per agent holds only within one
 * process. On SQLite the data directory's file lock gives this; on PostgreSQL a session-level
 * advisory lock does. It is held by one connection kept open for the server's life, so the
 * server dying in any way (even `kill -9`, or its host vanishing, once PostgreSQL notices the
 * dead connection) releases it, and nothing stale is left behind.
 */

/** The advisory lock's first key ("Hold"); the second is the schema's hash. */
const LOCK_CLASS = 0x486f6c64;

/** A held lock; `release` gives it up. */
export interface DatabaseLock {
  release(): Promise<void>;
}

/**
 * Takes the schema for this process, or throws `DatabaseInUseError` naming the holder.
 * `onLost` is called if the lock's connection fails while held: the lock is then gone, and
 * the server must stop writing (another may have started).
 */
export async function lockDatabase(
  url: string,
  schema: string,
  onLost: (error: Error) => void,
): Promise<DatabaseLock> {
  const me = `holdfast serve pid ${process.pid} on ${hostname()}`.slice(0, 63);
  const client = new pg.Client({ connectionString: url, application_name: me, keepAlive: true });
  await client.connect();
  let held = false;
  try {
    const { rows } = await client.query("SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked", [
      LOCK_CLASS,
      schema,
    ]);
    held = rows[0]?.locked === true;
    if (!held) throw new DatabaseInUseError(schema, await holderOf(client, schema));
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  client.on("error", (error) => {
    if (held) onLost(error);
  });
  return {
    release: async () => {
      if (!held) return;
      held = false;
      // Closing the session releases its advisory locks.
      await client.end().catch(() => undefined);
    },
  };
}

async function holderOf(client: pg.Client, schema: string): Promise<DatabaseLockHolder | null> {
  const { rows } = await client.query(
    `SELECT a.application_name, host(a.client_addr) AS client_addr,
       to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
     FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid = $1::bigint::oid AND l.objid = (hashtext($2)::bigint & 4294967295)::oid`,
    [LOCK_CLASS, schema],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    application: String(row.application_name ?? ""),
    clientAddress: row.client_addr === null ? null : String(row.client_addr),
    since: String(row.since),
  };
}
