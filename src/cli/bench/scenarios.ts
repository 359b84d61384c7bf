import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { newSessionState } from "../../records/session-state.js";
import { DEFAULT_DURABILITY, type Durability } from "../../storage/durability.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import type { Store } from "../../storage/store.js";
import { benchRuntime } from "./bench-setup.js";
import { heapMb, percentile, rssMb, summarize, type Timings, timed } from "./measure.js";

/** Which store a scenario runs on: SQLite (the default), or PostgreSQL at `pgUrl`. */
export interface BenchStore {
  durability?: Durability;
  pgUrl?: string | undefined;
}

/**
 * Runs `fn` against a fresh SQLite file (WAL, with the given durability), then removes it; or,
 * given a PostgreSQL URL, against a fresh schema there, then drops it.
 */
export async function withStore<T>(
  fn: (store: Store) => Promise<T>,
  { durability = DEFAULT_DURABILITY, pgUrl }: BenchStore = {},
): Promise<T> {
  if (pgUrl) return (await import("./postgres-store.js")).withPostgresStore(pgUrl, durability, fn);
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"), { durability });
  try {
    return await fn(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function sequential(turns: number, target?: BenchStore) {
  return withStore(async (store) => {
    const { runtime, createAgents } = benchRuntime(store);
    const [agent = ""] = await createAgents(1);
    const samples: number[] = [];
    const start = performance.now();
    for (let i = 0; i < turns; i += 1) {
      samples.push(await timed(() => runtime.send(agent, { content: `question ${i}` })));
    }
    const all = summarize(samples, performance.now() - start);
    const window = Math.max(1, Math.floor(turns / 10));
    const firstP50 = percentile(
      [...samples.slice(0, window)].sort((a, b) => a - b),
      50,
    );
    const lastP50 = percentile(
      [...samples.slice(-window)].sort((a, b) => a - b),
      50,
    );
    await runtime.shutdown();
    return { ...all, firstP50Ms: firstP50, lastP50Ms: lastP50 };
  }, target);
}

export async function concurrent(
  agents: number,
  turnsEach: number,
  target?: BenchStore,
): Promise<Timings & { rssMb: number; heapMb: number }> {
  return withStore(async (store) => {
    const { runtime, createAgents } = benchRuntime(store);
    const ids = await createAgents(agents);
    const samples: number[] = [];
    const start = performance.now();
    await Promise.all(
      ids.map(async (agent) => {
        for (let i = 0; i < turnsEach; i += 1) {
          samples.push(await timed(() => runtime.send(agent, { content: `question ${i}` })));
        }
      }),
    );
    const result = {
      ...summarize(samples, performance.now() - start),
      rssMb: rssMb(),
      heapMb: heapMb(),
    };
    await runtime.shutdown();
    return result;
  }, target);
}

/** Activation of stored agents that are not in memory: load record, type, session. */
export async function coldActivation(agents: number): Promise<Timings> {
  return withStore(async (store) => {
    const { runtime, createAgents } = benchRuntime(store);
    const ids = await createAgents(agents);
    const samples: number[] = [];
    const start = performance.now();
    for (const agent of ids) samples.push(await timed(() => runtime.resume(agent)));
    const result = summarize(samples, performance.now() - start);
    await runtime.shutdown();
    return result;
  });
}

/** Memory held per 10,000 idle agents: stored only, and activated then idle. */
export async function idleAgents(count: number) {
  return withStore(async (store) => {
    const { runtime, createAgents } = benchRuntime(store);
    const before = heapMb();
    const ids = await createAgents(count);
    const stored = heapMb();
    for (const agent of ids) await runtime.resume(agent);
    const active = heapMb();
    const rss = rssMb();
    await runtime.shutdown();
    const per10k = (mb: number) => (mb / count) * 10_000;
    return {
      agents: count,
      storedHeapMbPer10k: per10k(stored - before),
      activeHeapMbPer10k: per10k(active - stored),
      rssMbWithAllActive: rss,
    };
  });
}

/** The cost of one step's commit: two messages and the session checkpoint, durably. */
export async function checkpointCost(commits: number, target?: BenchStore): Promise<Timings> {
  return withStore(async (store) => {
    const { createAgents } = benchRuntime(store);
    const [agent = ""] = await createAgents(1);
    const state = { ...newSessionState("session-bench"), phase: "running" as const };
    const samples: number[] = [];
    const start = performance.now();
    for (let i = 0; i < commits; i += 1) {
      const date = new Date().toISOString();
      const base = { date, run_id: "run-bench", step_id: `step-${i}`, otid: null };
      const messages = [
        {
          ...base,
          id: `message-${i}-a`,
          message_type: "assistant_message" as const,
          content: "thinking",
        },
        { ...base, id: `message-${i}-b`, message_type: "user_message" as const, content: "hello" },
      ];
      samples.push(
        await timed(() =>
          store.commit({
            agentId: agent,
            state: { ...state, iteration: i },
            messages,
            memory: { blocks: [], passages: [] },
          }),
        ),
      );
    }
    return summarize(samples, performance.now() - start);
  }, target);
}

/** From process start to the first completed turn on a fresh store. */
export async function startupProbe(): Promise<number> {
  return withStore(async (store) => {
    const { runtime, createAgents } = benchRuntime(store);
    const [agent = ""] = await createAgents(1);
    await runtime.send(agent, { content: "first" });
    const elapsed = performance.now();
    await runtime.shutdown();
    return elapsed;
  });
}
