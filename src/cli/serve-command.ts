import type { Command } from "commander";

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: string;
  dataDir?: string;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run the HTTP server")
    .option("-c, --config <file>", "config file (env HOLDFAST_CONFIG; default ./holdfast.yaml)")
    .option("--host <host>", "address to bind (env HOLDFAST_HOST; default 127.0.0.1)")
    .option("-p, --port <port>", "port, 0 for any free one (env HOLDFAST_PORT; default 8283)")
    .option("--data-dir <dir>", "where data is stored (env HOLDFAST_DATA_DIR; default ./data)")
    .action(async (options: ServeOptions) =>
      (await import("./serve-action.js")).serveAction(options),
    );
}
