import { mkdirSync } from "node:fs";
import { resolveServerSettings } from "../config/server-settings.js";
import { VERSION } from "../core/version.js";
import { defaultModel } from "../llm/create-model.js";
import { createApp } from "../server/app.js";
import { listen } from "../server/serve.js";
import { loadConfigOrExit, printErrors } from "./load.js";
import type { ServeOptions } from "./serve-command.js";

/** Loaded only when `serve` runs, so other commands start without the server's modules. */
export async function serveAction(options: ServeOptions): Promise<void> {
  const { config, path } = loadConfigOrExit(options.config);
  const resolved = resolveServerSettings(options, process.env, config.server, path, process.cwd());
  if (!resolved.ok) {
    printErrors("settings", resolved.errors);
    process.exit(1);
  }
  const { host, port, dataDir } = resolved.settings;
  mkdirSync(dataDir, { recursive: true });
  const app = createApp({
    config,
    version: VERSION,
    onUnexpectedError: (error) => console.error("unexpected error:", error),
  });
  const server = await listen(app, host, port).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === "EADDRINUSE" ? `port ${port} is in use` : error.message;
    console.error(`cannot listen on ${host}:${port}: ${why}`);
    process.exit(1);
  });
  console.log(`Holdfast ${VERSION} listening on ${server.url}`);
  console.log(`  config: ${path ?? "none (built-in types only)"}`);
  console.log(`  data:   ${dataDir}`);
  console.log(`  types:  ${config.registry.names().join(", ")}`);
  const model = defaultModel(process.env, config.providers);
  const say = model.handle.startsWith("sim/") ? console.warn : console.log;
  say(`  model:  ${model.handle} (${model.reason})`);

  const stop = (signal: string) => {
    console.log(`${signal}: shutting down`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
