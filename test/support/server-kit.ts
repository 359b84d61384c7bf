import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { builtinConfig, type HoldfastConfig } from "../../src/config/config-file.js";
import type { ModelAdapter } from "../../src/llm/model.js";
import { createApp } from "../../src/server/app.js";
import { type AssembleOptions, assemble } from "../../src/server/assemble.js";
import { assembleWorker } from "../../src/server/assemble-worker.js";
import { listen } from "../../src/server/serve.js";
import type { SandboxDetection } from "../../src/tools/sandbox/sandbox.js";
import { clusterBacking } from "./cluster-backing.js";

/** `npm run test:cluster`: every test server runs on the Restate engine (see cluster-setup.ts). */
export const ON_CLUSTER = process.env.HOLDFAST_TEST_ENGINE === "restate";
let databases = 0;

/**
 * The real HTTP server on a free port, over SQLite in a temp directory, with a chosen model;
 * and Letta's official client pointed at it (no retries, so every request is seen once). Under
 * `npm run test:cluster`, over a fresh PostgreSQL database instead, its agents run by a worker
 * (in this process, with the same model and settings) registered with a real restate-server.
 */
export async function startTestServer(
  options: {
    model?: ModelAdapter;
    tokens?: Map<string, string>;
    env?: NodeJS.ProcessEnv;
    config?: HoldfastConfig;
    defaultModel?: string;
    /** How the shell runs; detected from the config's `sandbox.mode` when not given. */
    sandbox?: SandboxDetection;
    /** Trace export settings (OTEL_*); none by default, whatever the test process has. */
    otelEnv?: NodeJS.ProcessEnv;
    /** The built console to serve at /console (dist/console by default). */
    consoleDir?: string;
  } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), "holdfast-e2e-"));
  const config = options.config ?? builtinConfig();
  const common = {
    config,
    dataDir,
    defaultModel: options.defaultModel ?? "sim/demo",
    env: options.env ?? {},
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.model ? { modelFor: () => options.model as ModelAdapter } : {}),
    bearerTokens: options.tokens !== undefined,
    otelEnv: options.otelEnv ?? {},
  };
  const cluster = ON_CLUSTER ? await clusterParts(common) : null;
  const engine = await assemble({ ...common, ...cluster?.options });
  const app = createApp({
    config: engine.config,
    version: "test",
    services: engine.services,
    flush: () => engine.store.flush?.() ?? Promise.resolve(),
    tokens: options.tokens ?? null,
    metrics: engine.metrics,
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
  });
  const server = await listen(app, "127.0.0.1", 0);
  const client = (apiKey?: string) =>
    new Letta({ baseURL: server.url, maxRetries: 0, ...(apiKey ? { apiKey } : {}) });
  return {
    url: server.url,
    /** The data directory (SQLite, agents' workspaces under `workspaces/`). */
    dataDir,
    /** Where the turns' metrics are: the server's, or on the Restate engine its worker's. */
    metricsUrl: cluster?.worker.metricsUrl ?? server.url,
    client,
    engine,
    close: async () => {
      await server.close();
      await engine.close();
      await cluster?.worker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A worker for a fresh database, and how the API server then reaches it. */
async function clusterParts(common: Omit<AssembleOptions, "postgres" | "restate">) {
  const { pg, restate } = clusterBacking();
  const url = await pg.createDatabase(`server_${process.pid}_${++databases}`);
  const worker = await assembleWorker({
    ...common,
    pgUrl: url,
    ingressUrl: restate.ingressUrl,
    adminUrl: restate.adminUrl,
    host: "127.0.0.1",
    port: 0,
    metricsPort: 0,
  });
  const options = { postgres: { url }, restate: { ingressUrl: restate.ingressUrl, pgUrl: url } };
  return { worker, options };
}
