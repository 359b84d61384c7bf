import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

const MODULES = join(import.meta.dirname, "..", "..", "node_modules", "@modelcontextprotocol");

/** `@modelcontextprotocol/server-everything`, run with this Node. */
export const EVERYTHING_SERVER = join(MODULES, "server-everything", "dist", "index.js");
/** `@modelcontextprotocol/server-filesystem`, run with this Node. */
export const FILESYSTEM_SERVER = join(MODULES, "server-filesystem", "dist", "index.js");

/** The config of the everything server over stdio. */
export const everythingOverStdio = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [EVERYTHING_SERVER, "stdio"],
  ...extra,
});

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(),
      );
    });
  });
}

/** The everything server over Streamable HTTP on `port`, started and ready. */
export interface HttpMcpServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startEverythingOverHttp(port?: number): Promise<HttpMcpServer> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
    env: { ...process.env, PORT: String(chosen) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no start: ${seen}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${chosen}/mcp`,
    port: chosen,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
