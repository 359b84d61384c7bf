import { type Command, Option } from "commander";
import { LOG_LEVELS, type LogLevel } from "../server/request-log.js";
import { startSandboxProbe } from "../tools/sandbox/detect-sandbox.js";

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: string;
  dataDir?: string;
  durability?: string;
  pgUrl?: string;
  pgPoolSize?: string;
  engine?: string;
  restateIngress?: string;
  restateAdmin?: string;
  store?: "sqlite" | "memory";
  logLevel?: LogLevel;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run the HTTP server")
    .option("-c, --config <file>", "config file (env HOLDFAST_CONFIG; default ./holdfast.yaml)")
    .option("--host <host>", "address to bind (env HOLDFAST_HOST; default 127.0.0.1)")
    .option("-p, --port <port>", "port, 0 for any free one (env HOLDFAST_PORT; default 8283)")
    .option("--data-dir <dir>", "where data is stored (env HOLDFAST_DATA_DIR; default ./data)")
    .option(
      "--durability <mode>",
      "full: a commit is on disk before it is acknowledged; normal: survives a crash of the " +
        "process, not of the machine (env HOLDFAST_DURABILITY; default full)",
    )
    .option(
      "--pg-url <url>",
      "keep the data in PostgreSQL (postgres://user:password@host:port/database) instead of " +
        "SQLite in the data directory (env HOLDFAST_PG_URL)",
    )
    .option(
      "--pg-pool-size <n>",
      "connections to PostgreSQL kept open at most (env HOLDFAST_PG_POOL_SIZE; default 10)",
    )
    .option(
      "--engine <engine>",
      "embedded: agents run in this process; restate: as Restate virtual objects on workers " +
        "(`holdfast worker`), data in PostgreSQL (env HOLDFAST_ENGINE; default embedded)",
    )
    .option(
      "--restate-ingress <url>",
      "Restate's ingress (env HOLDFAST_RESTATE_INGRESS; default http://127.0.0.1:8080)",
    )
    .option(
      "--restate-admin <url>",
      "Restate's admin API (env HOLDFAST_RESTATE_ADMIN; default http://127.0.0.1:9070)",
    )
    .addOption(
      new Option("--store <kind>", "sqlite (durable) or memory").choices(["sqlite", "memory"]),
    )
    .addOption(
      new Option("--log-level <level>", "request logs").choices(LOG_LEVELS).default("info"),
    )
    .action(async (options: ServeOptions) => {
      // The sandbox's probe runs bwrap while the server's modules load (it is wasted only if
      // the config says `sandbox.mode: none`).
      startSandboxProbe();
      await (await import("./serve-action.js")).serveAction(options);
    });
}
