import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { resolveServerSettings } from "../config/server-settings.js";
import { VERSION } from "../core/version.js";
import { defaultModel } from "../llm/create-model.js";
import { createApp } from "../server/app.js";
import type { PostgresInUse } from "../server/assemble.js";
import { assemble } from "../server/assemble.js";
import { parseTokens } from "../server/auth.js";
import { jsonLogger } from "../server/request-log.js";
import { listen } from "../server/serve.js";
import { DatabaseInUseError } from "../storage/postgres/database-in-use.js";
import type { DurabilityInForce } from "../storage/sqlite/connection.js";
import { DataDirInUseError } from "../storage/sqlite/data-dir-lock.js";
import { describeSandbox } from "../tools/sandbox/sandbox.js";
import { describeWeb } from "../tools/web/web-settings.js";
import { loadConfigOrExit, printErrors } from "./load.js";
import { describeSearch } from "./search-banner.js";
import type { ServeOptions } from "./serve-command.js";

/** Loaded only when `serve` runs, so other commands start without the server's modules. */
export async function serveAction(options: ServeOptions): Promise<void> {
  const { config: loaded, path } = loadConfigOrExit(options.config);
  const resolved = resolveServerSettings(options, process.env, loaded.server, path, process.cwd());
  if (!resolved.ok) {
    printErrors("settings", resolved.errors);
    process.exit(1);
  }
  const { port, dataDir, durability, pgUrl, pgPoolSize, engine: kind } = resolved.settings;
  mkdirSync(dataDir, { recursive: true });
  const tokens = parseTokens(process.env.HOLDFAST_TOKENS);
  const host =
    tokens === null && !isLoopback(resolved.settings.host) ? "127.0.0.1" : resolved.settings.host;
  const model = defaultModel(process.env, loaded.providers);
  const log = jsonLogger(options.logLevel ?? "info", (line) => process.stdout.write(line));
  const engine = await assemble({
    config: loaded,
    dataDir,
    durability,
    hiddenPaths: path ? [dirname(path)] : [],
    defaultModel: model.handle,
    store: options.store ?? "sqlite",
    ...(pgUrl
      ? {
          postgres: {
            url: pgUrl,
            poolSize: pgPoolSize,
            // Without its lock another server may take the database: stop writing at once.
            onLockLost: (error: Error) => {
              console.error(`stopping: lost the PostgreSQL lock's connection (${error.message})`);
              process.exit(1);
            },
          },
        }
      : {}),
    ...(kind === "restate" && pgUrl
      ? { restate: { ingressUrl: resolved.settings.restateIngress, pgUrl } }
      : {}),
    onChainError: (runId, error, retryMs) =>
      log("error", {
        msg: "chain run failed; driving it again",
        chain_run_id: runId,
        error: String(error),
        retry_ms: retryMs,
      }),
    onMcpEvent: (message) => log("info", { msg: message }),
    onScheduleEvent: (message) => log("error", { msg: message }),
    onEmbeddingEvent: (message) => log("error", { msg: message }),
    bearerTokens: tokens !== null,
  }).catch((error: unknown) => {
    // Refused before the port is bound: a second server must not write this directory.
    if (!(error instanceof DataDirInUseError || error instanceof DatabaseInUseError)) throw error;
    console.error(`cannot start: ${error.message}`);
    process.exit(1);
  });
  // Without a sandbox the shell is withheld: the config the server runs with says so.
  const config = engine.config;
  for (const { runId, error } of engine.chainsFailed) {
    log("error", { msg: "chain run could not carry on", chain_run_id: runId, error });
  }
  for (const { agentId, error } of engine.failedToResume) {
    log("error", {
      msg: "interrupted session could not resume",
      agent_id: agentId,
      error: String(error),
    });
  }
  const app = createApp({
    metrics: engine.metrics,
    config,
    version: VERSION,
    services: engine.services,
    flush: () => engine.store.flush?.() ?? Promise.resolve(),
    tokens,
    logRequest: (line) => log("info", line),
    onUnexpectedError: (error) =>
      log("error", {
        msg: "unexpected error",
        error: String(error),
        stack: (error as Error)?.stack,
      }),
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
  if (config.chains.size > 0) console.log(`  chains: ${[...config.chains.keys()].join(", ")}`);
  const mcp = engine.services.mcpServers?.list() ?? [];
  if (mcp.length > 0) {
    const shown = mcp.map((s) => `${s.server_name} (${s.status}, ${s.tool_names.length} tools)`);
    console.log(`  mcp:    ${shown.join(", ")}`);
  }
  console.log(`  store:  ${describeStore(engine.durability, engine.postgres, kind)}`);
  if (kind === "restate") {
    console.log(
      `  engine: restate (ingress ${resolved.settings.restateIngress}); agents run on workers`,
    );
  }
  if (tokens === null) {
    console.warn("  auth:   none (no HOLDFAST_TOKENS): serving on loopback only");
    if (host !== resolved.settings.host)
      console.warn(`          asked for ${resolved.settings.host}, bound to ${host}`);
  } else {
    console.log(`  auth:   bearer tokens for ${new Set(tokens.values()).size} project(s)`);
  }
  const sandboxLine = `  sandbox: ${describeSandbox(engine.sandbox)}`;
  if (engine.sandbox.ok && engine.sandbox.sandbox.mode === "bwrap") console.log(sandboxLine);
  else console.warn(sandboxLine);
  console.log(`  web:    ${describeWeb(engine.web)}`);
  const say = model.handle.startsWith("sim/") ? console.warn : console.log;
  say(`  model:  ${model.handle} (${model.reason})`);
  console.log(`  search: ${describeSearch(engine.config, engine.store.vectors)}`);

  const stop = (signal: string) => {
    console.log(`${signal}: shutting down`);
    Promise.all([server.close(), engine.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** The store line of the banner, with the durability SQLite reports it runs with. */
function describeStore(
  durability: DurabilityInForce | null,
  postgres: PostgresInUse | null,
  engine: string,
): string {
  if (postgres !== null) {
    const { server, schema, poolSize } = postgres;
    const commit =
      postgres.durability === "full"
        ? "the server's synchronous_commit"
        : "synchronous_commit=off: the last commits may be lost if PostgreSQL crashes";
    return `postgres ${server} schema ${schema}, pool ${poolSize}, durability ${postgres.durability} (${commit}); ${engine === "restate" ? "shared by every API server and worker" : "one server per database (advisory lock)"}`;
  }
  if (durability === null) return "memory (nothing survives a restart)";
  const promise =
    durability.durability === "full"
      ? "nothing acknowledged is lost on power loss"
      : "survives a process crash; the last commits may be lost on power loss";
  const { synchronous, journalMode, walSynced } = durability;
  return `sqlite, durability ${durability.durability} (synchronous=${synchronous}, WAL synced ${walSynced}, journal=${journalMode}): ${promise}`;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}
