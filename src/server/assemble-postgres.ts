import { PgChainClaims } from "../chains/pg-chain-claims.js";
import { productionIds } from "../core/ids.js";
import { announceMcpChange, followMcpChanges } from "../runtime/restate/mcp-news.js";
import { RestateEngine } from "../runtime/restate/restate-engine.js";
import { DEFAULT_DURABILITY } from "../storage/durability.js";
import { DEFAULT_POOL_SIZE, DEFAULT_SCHEMA } from "../storage/postgres/pool.js";
import { openPostgresStore, type PostgresStore } from "../storage/postgres/postgres-store.js";
import { lockDatabase } from "../storage/postgres/writer-lock.js";
import type { Assembled, AssembleOptions } from "./assemble.js";
import { type ClusterWiring, wire } from "./wire.js";

/**
 * The server on PostgreSQL: the schema's advisory lock first (a second server fails with
 * `DatabaseInUseError`), then the store; on Restate no lock, and the cluster's parts.
 */
export async function assemblePostgres(
  options: AssembleOptions,
  settings: NonNullable<AssembleOptions["postgres"]>,
): Promise<Assembled> {
  const schema = DEFAULT_SCHEMA;
  const lost = settings.onLockLost ?? (() => undefined);
  // On Restate, Restate keeps one writer per agent: any number of API servers and workers.
  const lock = options.restate ? null : await lockDatabase(settings.url, schema, lost);
  let store: PostgresStore | undefined;
  try {
    const durability = options.durability ?? DEFAULT_DURABILITY;
    const poolSize = settings.poolSize ?? DEFAULT_POOL_SIZE;
    store = await openPostgresStore(settings.url, { schema, poolSize, durability });
    const where = new URL(settings.url);
    const server = `${where.host}${where.pathname}`;
    const postgres = { server, schema, poolSize, durability };
    const restate = options.restate ? onRestate(options.restate, schema) : null;
    return await wire(options, store, null, lock, { postgres, restate });
  } catch (error) {
    await store?.close();
    await lock?.release();
    throw error;
  }
}

function onRestate(
  { ingressUrl, pgUrl }: NonNullable<AssembleOptions["restate"]>,
  schema: string,
): ClusterWiring {
  return {
    openEngine: (store) =>
      RestateEngine.open({ store, pgUrl, schema, ingressUrl, ids: productionIds }),
    followMcpChanges: (sync) => followMcpChanges(pgUrl, schema, sync),
    announceMcpChange: () => announceMcpChange(pgUrl, schema),
    openClaims: () => PgChainClaims.open(pgUrl, schema),
  };
}
