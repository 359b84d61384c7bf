import { afterAll, beforeAll } from "vitest";
import {
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
  startEmbeddedPostgres,
} from "../../src/storage/postgres/embedded-server.js";

/** Starting PostgreSQL (initdb and all) takes seconds on a loaded machine. */
const START_TIMEOUT_MS = 120_000;

/**
 * One real PostgreSQL server for a test file: started once in `beforeAll`, stopped (its data
 * directory removed) in `afterAll`. Each test takes a fresh database or schema of its own.
 *
 * @example
 * const pg = usePostgres();
 * it("…", async () => { const store = await openPostgresStore(pg.url(), { schema: pg.freshSchema() }); });
 */
export function usePostgres(options: EmbeddedPostgresOptions = { fsyncOff: true }) {
  let server: EmbeddedPostgres | undefined;
  let made = 0;
  beforeAll(async () => {
    server = await startEmbeddedPostgres(options);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
  }, START_TIMEOUT_MS);
  const started = (): EmbeddedPostgres => {
    if (!server) throw new Error("PostgreSQL is not started (use it inside a test)");
    return server;
  };
  return {
    server: started,
    /** The URL of the server's default database. */
    url: () => started().url,
    /** A schema name no other test of this file uses (the store creates it). */
    freshSchema: () => `test_${++made}`,
    /** A new, empty database; returns its URL. */
    freshDatabase: () => started().createDatabase(`test_db_${++made}`),
  };
}
