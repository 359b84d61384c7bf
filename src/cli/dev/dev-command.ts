import type { Command } from "commander";

interface ClusterFlags {
  workers: string;
  port: string;
  config?: string;
  verbose?: boolean;
}

export function registerDevCommands(program: Command): void {
  const dev = program.command("dev").description("tools for trying Holdfast on one machine");
  dev
    .command("cluster")
    .description(
      "start the scale-out engine on loopback: PostgreSQL, restate-server, workers and the API; Ctrl-C stops them all",
    )
    .option("--workers <n>", "how many workers", "2")
    .option("-p, --port <port>", "the API's port", "8283")
    .option("-c, --config <file>", "config file for the API and the workers")
    .option("--verbose", "print what every process prints")
    .action(async (flags: ClusterFlags) => {
      const { startCluster } = await import("./cluster.js");
      const workers = Number(flags.workers);
      const apiPort = Number(flags.port);
      if (!Number.isInteger(workers) || workers < 1 || workers > 16) {
        console.error("--workers: a whole number from 1 to 16");
        process.exit(1);
      }
      console.log("starting PostgreSQL, restate-server, workers and the API…");
      const cluster = await startCluster({
        workers,
        apiPort,
        args: flags.config ? ["--config", flags.config] : [],
        ...(flags.verbose && { log: (source, line) => console.log(`[${source}] ${line}`) }),
      }).catch((error: unknown) => {
        console.error(
          `the cluster did not start: ${error instanceof Error ? error.message : error}`,
        );
        process.exit(1);
      });
      console.log(`Holdfast dev cluster is up`);
      console.log(`  API:        ${cluster.api.url}  (Letta's client: baseURL ${cluster.api.url})`);
      console.log(`  console:    ${cluster.api.url}/console`);
      for (const worker of cluster.workers) {
        const metrics = worker.metricsUrl ? `, metrics ${worker.metricsUrl}/metrics` : "";
        console.log(`  ${worker.name}:   ${worker.url}  (pid ${worker.child.pid}${metrics})`);
      }
      console.log(`  balancer:   ${cluster.balancer.url}  (registered with Restate)`);
      console.log(
        `  restate:    ingress ${cluster.restate.ingressUrl}, admin ${cluster.restate.adminUrl}`,
      );
      console.log(`  postgres:   ${cluster.pgUrl}`);
      console.log("Ctrl-C stops them all.");
      const stop = (signal: string) => {
        console.log(`${signal}: stopping the cluster`);
        cluster.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
