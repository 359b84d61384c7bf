import { afterAll, beforeAll } from "vitest";
import { startRestateServer } from "../../src/runtime/restate/restate-server.js";
import { startEmbeddedPostgres } from "../../src/storage/postgres/embedded-server.js";
import { clusterBacking, setClusterBacking } from "./cluster-backing.js";

// The setup file of vitest.cluster.config.ts: what a test file's servers share, for its life.
beforeAll(async () => {
  const [pg, restate] = await Promise.all([
    startEmbeddedPostgres({ fsyncOff: true }),
    startRestateServer({ fsyncOff: true }),
  ]);
  setClusterBacking({ pg, restate });
}, 180_000);

afterAll(async () => {
  const { pg, restate } = clusterBacking();
  setClusterBacking(undefined);
  await Promise.all([pg.stop(), restate.stop()]);
}, 120_000);
