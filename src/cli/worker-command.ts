import type { Command } from "commander";

export interface WorkerOptions {
  config?: string;
  host?: string;
  port?: string;
  dataDir?: string;
  pgUrl?: string;
  pgPoolSize?: string;
  durability?: string;
  restateIngress?: string;
  restateAdmin?: string;
  advertiseUrl?: string;
  metricsPort?: string;
}

export const DEFAULT_WORKER_PORT = 9080;

export function registerWorkerCommand(program: Command): void {
  program
    .command("worker")
    .description(
      "run a Restate worker: the service endpoint agents run in (stateless, any number); it registers itself with Restate",
    )
    .option("-c, --config <file>", "config file (env HOLDFAST_CONFIG; default ./holdfast.yaml)")
    .option("--host <host>", "address the endpoint binds (env HOLDFAST_HOST; default 127.0.0.1)")
    .option(
      "-p, --port <port>",
      `the endpoint's port, 0 for any free one (env HOLDFAST_WORKER_PORT; default ${DEFAULT_WORKER_PORT})`,
    )
    .option(
      "--data-dir <dir>",
      "where agents' workspaces are (env HOLDFAST_DATA_DIR; default ./data)",
    )
    .option(
      "--pg-url <url>",
      "the PostgreSQL database agents live in (env HOLDFAST_PG_URL; required)",
    )
    .option("--pg-pool-size <n>", "connections to PostgreSQL kept open at most (default 10)")
    .option("--durability <mode>", "full or normal, as for serve (env HOLDFAST_DURABILITY)")
    .option(
      "--restate-ingress <url>",
      "Restate's ingress, to reach other agents (env HOLDFAST_RESTATE_INGRESS; default http://127.0.0.1:8080)",
    )
    .option(
      "--restate-admin <url>",
      "Restate's admin API, to register at (env HOLDFAST_RESTATE_ADMIN; default http://127.0.0.1:9070)",
    )
    .option(
      "--advertise-url <url>",
      "the address registered with Restate, e.g. a load balancer's in front of all workers (env HOLDFAST_WORKER_URL; default this worker's own)",
    )
    .option(
      "--metrics-port <port>",
      "serve this worker's Prometheus metrics (its turns, model and tool calls) at GET /metrics on this port (env HOLDFAST_WORKER_METRICS_PORT; default none)",
    )
    .action(async (options: WorkerOptions) =>
      (await import("./worker-action.js")).workerAction(options),
    );
}
