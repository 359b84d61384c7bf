import { performance } from "node:perf_hooks";
import { productionIds } from "../../core/ids.js";
import type { Store } from "../../storage/store.js";
import { benchRuntime } from "./bench-setup.js";
import { percentile } from "./measure.js";
import { type BenchStore, withStore } from "./scenarios.js";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The floor under a turn: the commits the bench's turn makes (a message, a `lookup` call, its
 * result, the answer: one commit per step), replayed straight into the store without the loop,
 * then the store's flush, as a turn's answer waits for (decision 030); that flush is also timed
 * alone (`syncP50Ms`).
 * Turns and replays alternate on one agent, so both see the same load and the same store size;
 * `ratio` is how many floors a turn costs (the target: at most 2).
 */
export async function commitFloor(turns: number, target?: BenchStore) {
  return withStore(async (store) => {
    const recorded: string[] = [];
    let recording = false;
    const recorder = new Proxy(store, {
      get(real, name) {
        const value = Reflect.get(real, name);
        if (typeof value !== "function") return value;
        if (name !== "commit") return value.bind(real);
        return (...args: unknown[]) => {
          if (recording) recorded.push(JSON.stringify(args));
          return value.apply(real, args);
        };
      },
    });
    const { runtime, createAgents } = benchRuntime(recorder as Store);
    const [agent = ""] = await createAgents(1);
    await runtime.send(agent, { content: "warm" });
    recording = true;
    await runtime.send(agent, { content: "recorded" });
    recording = false;
    const session = (JSON.parse(recorded[0] ?? "[{}]") as [{ state?: { session_id?: string } }])[0]
      .state?.session_id;
    const kept = new Set([agent, session].map((id) => id?.match(UUID)?.[0]));
    const replay = async () => {
      // Fresh ids each time (messages, run, steps), made as a turn makes them; the agent and
      // its session kept.
      const fresh = new Map<string, string>();
      const renamed = (text: string) =>
        text.replace(UUID, (id) => {
          if (kept.has(id)) return id;
          if (!fresh.has(id)) fresh.set(id, productionIds.next("x").slice(2));
          return fresh.get(id) ?? id;
        });
      for (const args of recorded) {
        await store.commit(...(JSON.parse(renamed(args)) as Parameters<Store["commit"]>));
      }
      const start = performance.now();
      await store.flush?.();
      syncMs.push(performance.now() - start);
    };
    const turnMs: number[] = [];
    const floorMs: number[] = [];
    // The flush that ends each replay: with `full`, the sync of one turn's WAL pages, the part
    // of the floor no code of ours can shorten.
    const syncMs: number[] = [];
    for (let i = 0; i < turns; i += 1) {
      let start = performance.now();
      await runtime.send(agent, { content: `question ${i}` });
      turnMs.push(performance.now() - start);
      start = performance.now();
      await replay();
      floorMs.push(performance.now() - start);
    }
    await runtime.shutdown();
    const p50 = (samples: number[]) =>
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      );
    return {
      commitsPerTurn: recorded.length,
      turnP50Ms: p50(turnMs),
      floorP50Ms: p50(floorMs),
      syncP50Ms: p50(syncMs),
      ratio: p50(turnMs) / p50(floorMs),
    };
  }, target);
}
