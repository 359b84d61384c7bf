import type { RestateServer } from "../../src/runtime/restate/restate-server.js";
import type { EmbeddedPostgres } from "../../src/storage/postgres/embedded-server.js";

/**
 * `npm run test:cluster` runs the Letta end-to-end files again with every test server on the
 * Restate engine. What those servers share, started once per test file by cluster-setup.ts: a
 * real PostgreSQL (a fresh database per server) and a real restate-server (each server's
 * worker registers itself with it).
 */
let backing: { pg: EmbeddedPostgres; restate: RestateServer } | undefined;

export function setClusterBacking(started: typeof backing): void {
  backing = started;
}

export function clusterBacking(): { pg: EmbeddedPostgres; restate: RestateServer } {
  if (!backing) throw new Error("the cluster backing is not started (vitest.cluster.config.ts)");
  return backing;
}
