import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { builtinConfig, type HoldfastConfig } from "../../src/config/config-file.js";
import type { ModelAdapter } from "../../src/llm/model.js";
import { createApp } from "../../src/server/app.js";
import { assemble } from "../../src/server/assemble.js";
import { listen } from "../../src/server/serve.js";
import type { SandboxDetection } from "../../src/tools/sandbox/sandbox.js";

/**
 * The real HTTP server on a free port, over SQLite in a temp directory, with a chosen model;
 * and Letta's official client pointed at it (no retries, so every request is seen once).
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
  const engine = await assemble({
    config,
    dataDir,
    defaultModel: options.defaultModel ?? "sim/demo",
    env: options.env ?? {},
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.model ? { modelFor: () => options.model as ModelAdapter } : {}),
    bearerTokens: options.tokens !== undefined,
    otelEnv: options.otelEnv ?? {},
  });
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
    client,
    engine,
    close: async () => {
      await server.close();
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
