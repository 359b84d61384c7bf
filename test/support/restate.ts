import { afterAll, beforeAll } from "vitest";
import { builtinConfig } from "../../src/config/config-file.js";
import { systemClock } from "../../src/core/clock.js";
import { productionIds } from "../../src/core/ids.js";
import { createSimModel, type SimScript } from "../../src/llm/sim/sim-model.js";
import { registerDeployment } from "../../src/runtime/restate/admin.js";
import { RestateEngine } from "../../src/runtime/restate/restate-engine.js";
import {
  type RestateServer,
  startRestateServer,
} from "../../src/runtime/restate/restate-server.js";
import { type RestateWorker, startWorker } from "../../src/runtime/restate/worker.js";
import {
  type EmbeddedPostgres,
  startEmbeddedPostgres,
} from "../../src/storage/postgres/embedded-server.js";
import {
  openPostgresStore,
  type PostgresStore,
} from "../../src/storage/postgres/postgres-store.js";
import { builtinToolImplementations } from "../../src/tools/registry.js";

const START_TIMEOUT_MS = 180_000;
const SCHEMA = "holdfast";

/** What a test file's cluster is made of, once started. */
export interface RestateCluster {
  pg: EmbeddedPostgres;
  restate: RestateServer;
  store: PostgresStore;
  worker: RestateWorker;
  engine: RestateEngine;
  /** The sim model's script for what runs next (the worker's agents all follow it). */
  setScript(script: SimScript): void;
}

/**
 * A Restate cluster in this process, started once per test file: embedded PostgreSQL, a real
 * restate-server, one worker (its endpoint registered with Restate) and the API's engine. Its
 * agents answer with the script the test sets. Tests share the store and use fresh agents.
 */
export function useRestateCluster() {
  let cluster: RestateCluster | undefined;
  beforeAll(async () => {
    const [pg, restate] = await Promise.all([
      startEmbeddedPostgres({ fsyncOff: true }),
      startRestateServer({ fsyncOff: true }),
    ]);
    const store = await openPostgresStore(pg.url, { schema: SCHEMA });
    let script: SimScript = () => ({ text: "hello" });
    const model = createSimModel({ script: (request, call) => script(request, call) });
    const config = builtinConfig();
    const worker = await startWorker({
      store,
      pgUrl: pg.url,
      schema: SCHEMA,
      ingressUrl: restate.ingressUrl,
      config,
      ids: productionIds,
      clock: systemClock,
      tools: builtinToolImplementations({ mode: "none" }),
      modelFor: () => model,
      defaultModel: "sim/demo",
      workspaceFor: (_record, isolation) => ({
        root: null,
        readOnly: isolation.read_only,
        network: isolation.network,
      }),
    });
    await registerDeployment(restate.adminUrl, worker.url);
    const engine = await RestateEngine.open({
      store,
      pgUrl: pg.url,
      schema: SCHEMA,
      ingressUrl: restate.ingressUrl,
      ids: productionIds,
    });
    cluster = {
      pg,
      restate,
      store,
      worker,
      engine,
      setScript: (next) => {
        script = next;
      },
    };
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    if (!cluster) return;
    await cluster.engine.shutdown();
    await cluster.worker.close();
    await cluster.store.close();
    await Promise.all([cluster.restate.stop(), cluster.pg.stop()]);
  }, START_TIMEOUT_MS);
  return (): RestateCluster => {
    if (!cluster) throw new Error("the cluster is not started (use it inside a test)");
    return cluster;
  };
}
