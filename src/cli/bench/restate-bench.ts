import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { productionIds } from "../../core/ids.js";
import { registerDeployment } from "../../runtime/restate/admin.js";
import { RestateEngine } from "../../runtime/restate/restate-engine.js";
import { freePort, startRestateServer } from "../../runtime/restate/restate-server.js";
import { startWorker } from "../../runtime/restate/worker.js";
import { startEmbeddedPostgres } from "../../storage/postgres/embedded-server.js";
import { openPostgresStore } from "../../storage/postgres/postgres-store.js";
import { startTcpBalancer } from "../dev/tcp-balancer.js";
import type { InChild } from "./bench-command.js";
import { benchWorld } from "./bench-setup.js";
import { summarize, type Timings, timed } from "./measure.js";

const BIN = fileURLToPath(new URL("../../../bin/holdfast.js", import.meta.url));

/** What one round on the Restate engine measured. */
interface RestateRound {
  workers: number;
  sequential: Timings;
  concurrent20x10: Timings;
  /** One call through Restate that does no turn (`session`): the engine's own round trip. */
  call: Timings;
}

/**
 * The Restate engine beside the embedded one, in the same run, with the bench's turn shape
 * (a lookup call, then an answer: two model calls, one tool call, three step commits). The
 * driver here is the API's engine; the workers are processes of their own behind a balancer,
 * as in the dev cluster; PostgreSQL (fsync on) and restate-server are started for the run.
 */
export async function benchRestate(quick: boolean, out: string, inChild: InChild): Promise<void> {
  const [pg, restate] = await Promise.all([startEmbeddedPostgres(), startRestateServer()]);
  try {
    const rounds: RestateRound[] = [];
    for (const workers of [1, 2]) {
      rounds.push(await round(workers, quick, pg.url, restate));
    }
    const embedded = {
      postgres: inChild<Timings>("sequential", quick, "full", pg.url),
      postgresConcurrent: inChild<Timings>("concurrent100", quick, "full", pg.url),
      sqlite: inChild<Timings>("sequential", quick, "full"),
    };
    const results = {
      machine: { node: process.version, platform: process.platform, arch: process.arch },
      restate: rounds,
      embedded,
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    const f = (t: Timings) =>
      `${t.perSecond.toFixed(0)} turns/s, p50 ${t.p50Ms.toFixed(2)} ms, p99 ${t.p99Ms.toFixed(2)} ms`;
    for (const r of rounds) {
      console.log(`restate, ${r.workers} worker(s), 1 agent:      ${f(r.sequential)}`);
      console.log(`restate, ${r.workers} worker(s), 20 agents:    ${f(r.concurrent20x10)}`);
      console.log(
        `restate, ${r.workers} worker(s), bare call:    p50 ${r.call.p50Ms.toFixed(2)} ms, p99 ${r.call.p99Ms.toFixed(2)} ms`,
      );
    }
    console.log(`embedded on postgres, 1 agent:      ${f(embedded.postgres)}`);
    console.log(`embedded on postgres, 100 agents:   ${f(embedded.postgresConcurrent)}`);
    console.log(`embedded on sqlite, 1 agent:        ${f(embedded.sqlite)}`);
    console.log(`\nwritten to ${out}`);
  } finally {
    await restate.stop();
    await pg.stop();
  }
}

async function round(
  workers: number,
  quick: boolean,
  pgUrl: string,
  restate: { ingressUrl: string; adminUrl: string },
): Promise<RestateRound> {
  const schema = `bench_restate_${workers}`;
  const store = await openPostgresStore(pgUrl, { schema });
  const ports = await Promise.all(Array.from({ length: workers }, () => freePort()));
  const children = await Promise.all(
    ports.map((port) => spawnWorker(port, pgUrl, schema, restate.ingressUrl)),
  );
  const balancer = await startTcpBalancer(ports);
  const engine = await RestateEngine.open({
    store,
    pgUrl,
    schema,
    ingressUrl: restate.ingressUrl,
    ids: productionIds,
  });
  try {
    await registerDeployment(restate.adminUrl, balancer.url);
    const { createAgents } = benchWorld(store);
    const n = (count: number) => Math.max(2, Math.round(count * (quick ? 0.1 : 1)));
    const [agent = ""] = await createAgents(1);
    for (let i = 0; i < 10; i += 1) await engine.send(agent, { content: `warm ${i}` });
    const sequential = await measure(n(200), () => engine.send(agent, { content: "question" }));
    const call = await measure(n(200), () => engine.session(agent));
    const many = await createAgents(20);
    const samples: number[] = [];
    const start = performance.now();
    await Promise.all(
      many.map(async (id) => {
        for (let i = 0; i < n(10); i += 1) {
          samples.push(await timed(() => engine.send(id, { content: `question ${i}` })));
        }
      }),
    );
    const concurrent20x10 = summarize(samples, performance.now() - start);
    return { workers, sequential, concurrent20x10, call };
  } finally {
    await engine.shutdown();
    await balancer.close();
    for (const child of children) child.kill("SIGTERM");
    await store.close();
  }
}

async function measure(count: number, fn: () => Promise<unknown>): Promise<Timings> {
  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i += 1) samples.push(await timed(fn));
  return summarize(samples, performance.now() - start);
}

function spawnWorker(
  port: number,
  pgUrl: string,
  schema: string,
  ingressUrl: string,
): Promise<ChildProcess> {
  const args = [BIN, "bench", "--restate-worker", String(port), "--pg-url", pgUrl];
  args.push("--schema", schema, "--restate-ingress", ingressUrl);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`bench worker exited with ${code}`)));
  });
}

/** A worker process of the bench: the bench's world on the Restate engine, until SIGTERM. */
export async function serveBenchWorker(
  port: number,
  pgUrl: string,
  schema: string,
  ingressUrl: string,
): Promise<void> {
  const store = await openPostgresStore(pgUrl, { schema });
  const { options } = benchWorld(store);
  const worker = await startWorker({ ...options, store, pgUrl, schema, ingressUrl, port });
  console.log("ready");
  process.once("SIGTERM", () => {
    worker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
