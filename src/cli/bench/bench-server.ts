import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinConfig } from "../../config/config-file.js";
import type { ModelAdapter } from "../../llm/model.js";
import { createApp } from "../../server/app.js";
import { assemble } from "../../server/assemble.js";
import { listen } from "../../server/serve.js";
import { DEFAULT_DURABILITY, type Durability } from "../../storage/durability.js";

/**
 * The HTTP server as `holdfast serve` builds it, in this process, on SQLite in a temp
 * directory, every agent on `model`: what the HTTP scenarios measure. `close` removes it all.
 */
export async function benchServer(
  model: ModelAdapter,
  durability: Durability = DEFAULT_DURABILITY,
) {
  const dataDir = mkdtempSync(join(tmpdir(), "holdfast-bench-http-"));
  const assembled = await assemble({
    config: builtinConfig(),
    dataDir,
    durability,
    defaultModel: "sim/bench",
    env: {},
    modelFor: () => model,
    otelEnv: {},
  });
  const app = createApp({
    config: assembled.config,
    version: "bench",
    services: assembled.services,
    flush: () => assembled.store.flush?.() ?? Promise.resolve(),
    tokens: null,
    metrics: assembled.metrics,
  });
  const server = await listen(app, "127.0.0.1", 0);
  return {
    assembled,
    url: server.url,
    close: async () => {
      await server.close();
      await assembled.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
