import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { resolveServerSettings } from "../config/server-settings.js";
import { VERSION } from "../core/version.js";
import { defaultModel } from "../llm/create-model.js";
import { assembleWorker } from "../server/assemble-worker.js";
import { loadConfigOrExit, printErrors } from "./load.js";
import { DEFAULT_WORKER_PORT, type WorkerOptions } from "./worker-command.js";

/** `holdfast worker`: loaded only when it runs. */
export async function workerAction(options: WorkerOptions): Promise<void> {
  const { config: loaded, path } = loadConfigOrExit(options.config);
  const port = options.port ?? process.env.HOLDFAST_WORKER_PORT ?? String(DEFAULT_WORKER_PORT);
  const flags = { ...options, port, engine: "restate" };
  // The API's port setting is not the worker's: only the worker's own flag and env count.
  const env = { ...process.env, HOLDFAST_PORT: undefined };
  const resolved = resolveServerSettings(flags, env, loaded.server, path, process.cwd());
  if (!resolved.ok) {
    // The engine is implied here: its complaint is about the missing database.
    const errors = resolved.errors.map((error) =>
      error.path === "--engine"
        ? { path: "--pg-url", message: "required: the PostgreSQL database agents live in" }
        : error,
    );
    printErrors("settings", errors);
    process.exit(1);
  }
  const settings = resolved.settings;
  const { pgUrl } = settings;
  if (!pgUrl) process.exit(1);
  mkdirSync(settings.dataDir, { recursive: true });
  const model = defaultModel(process.env, loaded.providers);
  const advertiseUrl = options.advertiseUrl ?? process.env.HOLDFAST_WORKER_URL;
  const metricsPort = metricsPortOf(
    options.metricsPort ?? process.env.HOLDFAST_WORKER_METRICS_PORT,
  );
  const assembled = await assembleWorker({
    config: loaded,
    dataDir: settings.dataDir,
    durability: settings.durability,
    hiddenPaths: path ? [dirname(path)] : [],
    defaultModel: model.handle,
    pgUrl,
    poolSize: settings.pgPoolSize,
    ingressUrl: settings.restateIngress,
    adminUrl: settings.restateAdmin,
    host: settings.host,
    port: settings.port,
    ...(advertiseUrl && { advertiseUrl }),
    ...(metricsPort !== null && { metricsPort }),
    log: (level, message) => {
      if (level === "warn" || level === "error") console.error(`restate ${level}: ${message}`);
    },
  }).catch((error: unknown) => {
    console.error(`cannot start the worker: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
  console.log(`Holdfast ${VERSION} worker listening on ${assembled.worker.url}`);
  if (assembled.metricsUrl) console.log(`  metrics:    ${assembled.metricsUrl}/metrics`);
  console.log(`  registered: ${assembled.registered} at ${settings.restateAdmin}`);
  console.log(`  ingress:    ${settings.restateIngress}`);
  console.log(`  store:      postgres ${new URL(pgUrl).host}${new URL(pgUrl).pathname}`);
  console.log(`  model:      ${model.handle} (${model.reason})`);
  const stop = (signal: string) => {
    console.log(`${signal}: shutting down`);
    assembled.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** The metrics port asked for, or null; a bad one ends the process with the reason. */
function metricsPortOf(text: string | undefined): number | null {
  if (text === undefined || text === "") return null;
  const port = Number(text);
  if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
  printErrors("settings", [{ path: "--metrics-port", message: `not a port: '${text}'` }]);
  process.exit(1);
}
