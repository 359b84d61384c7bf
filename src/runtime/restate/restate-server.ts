import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A Restate server from the `@restatedev/restate-server` npm package (a dev dependency: tests,
 * `holdfast dev cluster`, the bench). Production runs Restate's own cluster and passes URLs.
 */
export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  readonly baseDir: string;
  readonly pid: number | undefined;
  /** Kills it with SIGKILL (a crash); `restart` brings it back on the same ports and data. */
  crash(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it; removes its data unless it was given a directory to keep. */
  stop(): Promise<void>;
}

export interface RestateServerOptions {
  /** Where it keeps its journal and state (default: a new temp directory, removed at stop). */
  baseDir?: string;
  ingressPort?: number;
  adminPort?: number;
  /**
   * Skip fsync of its log (tests only): a crash of the machine may lose what it acknowledged;
   * a crash of the process loses nothing. Default false.
   */
  fsyncOff?: boolean;
  /** Where its output goes (default: kept in memory, shown if it fails to start). */
  log?: (line: string) => void;
}

const START_TIMEOUT_MS = 60_000;

/** The restate-server binary of this platform, from node_modules. */
export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(`@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`);
  } catch (cause) {
    throw new Error(
      "@restatedev/restate-server is not installed (a dev dependency); run Restate yourself and pass --restate-ingress and --restate-admin",
      { cause },
    );
  }
}

/** Starts a single-node Restate server on loopback, on free ports unless told which. */
export async function startRestateServer(
  options: RestateServerOptions = {},
): Promise<RestateServer> {
  const binary = restateServerBinary();
  const owned = !options.baseDir;
  const baseDir = options.baseDir ?? (await mkdtemp(join(tmpdir(), "holdfast-restate-")));
  const ingressPort = options.ingressPort ?? (await freePort());
  const adminPort = options.adminPort ?? (await freePort());
  const nodePort = await freePort();
  const ingressUrl = `http://127.0.0.1:${ingressPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  let output = "";
  let child: ChildProcess | null = null;
  const launch = async () => {
    const env = {
      ...process.env,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${nodePort}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${nodePort}/`,
      RESTATE_LISTEN_MODE: "tcp",
      RESTATE_NODE_NAME: "holdfast",
      RESTATE_DEFAULT_NUM_PARTITIONS: "4",
      RESTATE_LOG_FORMAT: "compact",
      ...(options.fsyncOff && { RESTATE_BIFROST__LOCAL__ROCKSDB_DISABLE_WAL_FSYNC: "true" }),
    };
    const started = spawn(binary, ["--no-logo", "--base-dir", baseDir], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = started;
    const take = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (options.log) options.log(text);
      else output = (output + text).slice(-8_000);
    };
    started.stdout?.on("data", take);
    started.stderr?.on("data", take);
    try {
      await waitUntilReady(ingressUrl, adminUrl, started);
    } catch (error) {
      started.kill("SIGKILL");
      throw new Error(`restate-server did not start: ${String(error)}\n${output}`);
    }
  };
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill(signal);
    await exited;
  };
  await launch();
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    crash: () => end("SIGKILL"),
    restart: launch,
    stop: async () => {
      await end("SIGTERM");
      if (owned) await rm(baseDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilReady(ingressUrl: string, adminUrl: string, child: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`it exited with ${child.exitCode}`);
    const ok = async (url: string) => (await fetch(url).catch(() => null))?.ok === true;
    if ((await ok(`${adminUrl}/health`)) && (await ok(`${ingressUrl}/restate/health`))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("it did not answer in time");
}

/** A TCP port free on loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
