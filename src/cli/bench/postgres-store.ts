import pg from "pg";
import type { Durability } from "../../storage/durability.js";
import { openPostgresStore } from "../../storage/postgres/postgres-store.js";
import type { Store } from "../../storage/store.js";

/** Runs `fn` against a fresh schema of the PostgreSQL database at `url`, then drops it. */
export async function withPostgresStore<T>(
  url: string,
  durability: Durability,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const schema = `bench_${process.pid}`;
  const store = await openPostgresStore(url, { schema, durability });
  try {
    return await fn(store);
  } finally {
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
