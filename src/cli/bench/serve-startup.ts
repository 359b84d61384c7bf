import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { percentile } from "./measure.js";

/** One start of `holdfast serve`, from spawning it. */
export interface ServeStart {
  /** Until it printed that it listens. */
  listeningMs: number;
  /** Until the first turn answered: an agent created, then a message sent, over HTTP. */
  firstTurnMs: number;
  /** The server's resident memory after that turn. */
  rssMb: number;
}

/**
 * What an operator waits for: `holdfast serve` on a new data directory, as a process of its
 * own, until its first turn through the Letta API. Each start gets a fresh directory and an
 * environment without provider keys or Holdfast settings (the model is `sim/demo`).
 */
export async function serveStartup(starts: number) {
  const runs: ServeStart[] = [];
  for (let i = 0; i < starts; i += 1) runs.push(await startOnce());
  const median = (pick: (run: ServeStart) => number) =>
    percentile(
      runs.map(pick).sort((a, b) => a - b),
      50,
    );
  return {
    starts,
    listeningP50Ms: median((run) => run.listeningMs),
    firstTurnP50Ms: median((run) => run.firstTurnMs),
    firstTurnMinMs: Math.min(...runs.map((run) => run.firstTurnMs)),
    rssP50Mb: median((run) => run.rssMb),
  };
}

async function startOnce(): Promise<ServeStart> {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-serve-"));
  const bin = fileURLToPath(new URL("../../../bin/holdfast.js", import.meta.url));
  const args = [bin, "serve", "--data-dir", join(dir, "data"), "--port", "0"];
  const started = performance.now();
  // With the bench's own Node flags, as `npm start` gives the server the same cap.
  const server = spawn(process.execPath, [...process.execArgv, ...args, "--log-level", "error"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Its banner's warnings (the sim model, no auth) go to stderr: kept for an error only.
  let stderr = "";
  server.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  try {
    const url = await listeningUrl(server.stdout).catch((error: Error) => {
      throw new Error(`${error.message}\n${stderr}`);
    });
    const listeningMs = performance.now() - started;
    const agent = await post(`${url}/v1/agents/`, { model: "sim/demo" });
    await post(`${url}/v1/agents/${agent.id}/messages`, {
      messages: [{ role: "user", content: "hello" }],
    });
    const firstTurnMs = performance.now() - started;
    return { listeningMs, firstTurnMs, rssMb: rssOf(server.pid) };
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How long a server may take to listen before the scenario gives up on it. */
const LISTEN_TIMEOUT_MS = 60_000;

/** The address in the server's "listening on http://…" line. */
function listeningUrl(stdout: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`the server did not listen within ${LISTEN_TIMEOUT_MS} ms:\n${seen}`)),
      LISTEN_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (!match?.[1]) return;
      clearTimeout(timer);
      stdout.off("data", onData);
      stdout.resume();
      resolve(match[1]);
    };
    stdout.on("data", onData);
    stdout.once("end", () => {
      clearTimeout(timer);
      reject(new Error(`the server exited before listening:\n${seen}`));
    });
  });
}

async function post(url: string, body: unknown): Promise<{ id?: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id?: string };
}

/** Resident memory of a process, in MB, from Linux's /proc (NaN elsewhere). */
function rssOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
