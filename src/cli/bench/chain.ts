import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChainRunner } from "../../chains/chain-runner.js";
import { checkConfig } from "../../config/config-file.js";
import { systemClock } from "../../core/clock.js";
import { assert } from "../../core/errors.js";
import { productionIds } from "../../core/ids.js";
import type { Durability } from "../../storage/durability.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import { benchRuntime } from "./bench-setup.js";
import { byOwnTime, timed } from "./measure.js";

const WORKER = "qa_assistant";
const MERGER = "synthesis";

/** Three agents at once, then a synthesis of their answers: the bench's chain. */
const CHAIN = {
  stages: [
    {
      name: "research",
      parallel: true,
      agents: ["a", "b", "c"].map((name) => ({ type: WORKER, name, task: `${name}: {{input}}` })),
      synthesis: { type: MERGER },
    },
  ],
};

/**
 * A chain run (3 parallel agents → synthesis, model at zero latency) beside the same four
 * turns run directly: on four warm agents, and on four agents created for the round (as a
 * chain creates its stage agents). Rounds alternate which goes first; the first tenth warm up.
 */
export async function chainOverhead(rounds: number, durability: Durability = "full") {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"), { durability });
  const checked = checkConfig({ chains: { bench: CHAIN } });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const { config } = checked;
  const chain = config.chains.get("bench");
  const types = [WORKER, MERGER].map((name) => config.registry.get(name));
  if (!chain || types.some((type) => !type)) throw new Error("bench chain did not resolve");
  const { runtime, createAgents } = benchRuntime(store, {
    types: types.flatMap((type) => (type ? [type] : [])),
    script: () => ({ text: "an answer" }),
  });
  const runner = new ChainRunner({
    store,
    engine: runtime,
    config,
    ids: productionIds,
    clock: systemClock,
  });
  const fourTurns = async (workers: string[], merger: string) => {
    const answers = await Promise.all(workers.map((id) => runtime.send(id, { content: "q" })));
    const merged = await runtime.send(merger, { content: answers.map((a) => a.stopReason).join() });
    assert(merged.stopReason === "end_turn", `a bench turn stopped with ${merged.stopReason}`);
  };
  try {
    const warm = await createAgents(3, WORKER);
    const [warmMerger = ""] = await createAgents(1, MERGER);
    const warmup = Math.max(2, Math.round(rounds / 10));
    const chainMs: number[] = [];
    const warmMs: number[] = [];
    const freshMs: number[] = [];
    for (let i = 0; i < warmup + rounds; i++) {
      const runChain = () =>
        timed(async () => {
          const started = await runner.start("default", chain, `question ${i}`);
          const done = await runner.settled(started.id);
          assert(done.status === "completed", `a bench chain ended ${done.status}`);
        });
      const runWarm = () => timed(() => fourTurns(warm, warmMerger));
      const runFresh = () =>
        timed(async () => {
          const workers = await createAgents(3, WORKER);
          const [merger = ""] = await createAgents(1, MERGER);
          await fourTurns(workers, merger);
        });
      const order = i % 2 === 0 ? [runChain, runWarm, runFresh] : [runFresh, runWarm, runChain];
      const [x, y, z] = [await order[0]?.(), await order[1]?.(), await order[2]?.()] as number[];
      if (i < warmup) continue;
      const [c, w, f] = i % 2 === 0 ? [x, y, z] : [z, y, x];
      chainMs.push(c ?? 0);
      warmMs.push(w ?? 0);
      freshMs.push(f ?? 0);
    }
    runner.shutdown();
    await runtime.shutdown();
    const chainRun = byOwnTime(chainMs);
    const direct = byOwnTime(warmMs);
    const directFresh = byOwnTime(freshMs);
    return {
      chainRun,
      fourTurnsWarm: direct,
      fourTurnsFresh: directFresh,
      overheadVsWarmP50: chainRun.p50Ms / direct.p50Ms,
      overheadVsFreshP50: chainRun.p50Ms / directFresh.p50Ms,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
