import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  freePort,
  type RestateServer,
  startRestateServer,
} from "../../runtime/restate/restate-server.js";
import { startEmbeddedPostgres } from "../../storage/postgres/embedded-server.js";
import { startTcpBalancer, type TcpBalancer } from "./tcp-balancer.js";

const BIN = fileURLToPath(new URL("../../../bin/holdfast.js", import.meta.url));
const START_TIMEOUT_MS = 120_000;

export interface ClusterOptions {
  /** How many workers (default 2). */
  workers?: number;
  /** The API's port (default 8283; 0 for a free one). */
  apiPort?: number;
  /** Given to every Holdfast process (a model provider's key or URL, say). */
  env?: NodeJS.ProcessEnv;
  /** Extra arguments for `serve` and `worker` (a config file, say). */
  args?: readonly string[];
  /** Told each line the processes print, with its source. */
  log?: (source: string, line: string) => void;
}

/** A process of the cluster that Holdfast started. */
export interface ClusterProcess {
  readonly name: string;
  readonly url: string;
  /** Where a worker serves its metrics (`…/metrics`). */
  readonly metricsUrl?: string;
  readonly child: ChildProcess;
  /** Kills it with SIGKILL and waits for it to be gone. */
  crash(): Promise<void>;
}

export interface Cluster {
  readonly pgUrl: string;
  readonly restate: RestateServer;
  readonly balancer: TcpBalancer;
  readonly workers: ClusterProcess[];
  readonly api: ClusterProcess;
  /** Starts one more API server on the same cluster (a free port). */
  addApi(): Promise<ClusterProcess>;
  stop(): Promise<void>;
}

/**
 * The scale-out engine on one machine, on loopback: an embedded PostgreSQL, restate-server from
 * npm, workers behind a TCP balancer (the address registered with Restate) and the API server
 * with `--engine restate`. What `holdfast dev cluster` runs; the end-to-end tests too.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const dataDir = await mkdtemp(join(tmpdir(), "holdfast-cluster-"));
  const started: (() => Promise<void>)[] = [() => rm(dataDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const end of started.splice(0).reverse()) await end().catch(() => undefined);
  };
  try {
    const [pg, restate] = await Promise.all([
      startEmbeddedPostgres({ fsyncOff: false }),
      startRestateServer(),
    ]);
    started.push(
      () => pg.stop(),
      () => restate.stop(),
    );
    const count = options.workers ?? 2;
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const balancer = await startTcpBalancer(ports);
    started.push(() => balancer.close());
    const env = {
      ...process.env,
      ...options.env,
      HOLDFAST_PG_URL: pg.url,
      HOLDFAST_RESTATE_INGRESS: restate.ingressUrl,
      HOLDFAST_RESTATE_ADMIN: restate.adminUrl,
      HOLDFAST_DATA_DIR: dataDir,
    };
    const args = options.args ?? [];
    const workers = await Promise.all(
      ports.map((port, i) =>
        launch(
          `worker-${i + 1}`,
          [
            "worker",
            "--port",
            String(port),
            "--advertise-url",
            balancer.url,
            "--metrics-port",
            "0",
            ...args,
          ],
          env,
          /registered: /,
          options.log,
        ),
      ),
    );
    for (const worker of workers) started.push(() => end(worker.child));
    const startApi = async (port: number, name: string) => {
      const api = await launch(
        name,
        ["serve", "--engine", "restate", "--port", String(port), ...args],
        env,
        /\n {2}search: .*\n/,
        options.log,
      );
      started.push(() => end(api.child));
      return api;
    };
    const api = await startApi(options.apiPort ?? 8283, "api");
    let apis = 1;
    const addApi = () => startApi(0, `api-${++apis}`);
    return { pgUrl: pg.url, restate, balancer, workers, api, addApi, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts `holdfast ARGS` and resolves once its banner says it is ready. */
function launch(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  log?: (source: string, line: string) => void,
): Promise<ClusterProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} did not start in time:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-20_000);
      if (log) for (const line of text.split("\n").filter(Boolean)) log(name, line);
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && ready.test(output)) {
        clearTimeout(timer);
        const metricsUrl = /metrics: +(http:\/\/\S+)\/metrics/.exec(output)?.[1];
        resolve({
          name,
          url,
          child,
          ...(metricsUrl && { metricsUrl }),
          crash: () => end(child, "SIGKILL"),
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

function end(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}
