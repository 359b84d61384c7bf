import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import { assert } from "../../core/errors.js";
import type { RunOutcome } from "../../runtime/engine.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import type { AgentType } from "../../types/agent-type.js";
import { benchRuntime } from "./bench-setup.js";
import { CHILD_TYPE, fanOutProbe } from "./fan-out-probe.js";
import { byOwnTime } from "./measure.js";

const PARENT_TYPE = "orchestrator";

/**
 * One parent (the built-in orchestrator) answers a user message with `width` spawn calls in one
 * response; its children (built-in `qa_assistant`, no tools) answer at once, and the parent then
 * gives its final text. Each round is one fan-out turn on a fresh parent and, beside it, `width`
 * plain turns at once on as many warm agents of the children's type: the difference is what
 * spawning costs. The two sides share every round (so both see the same JIT, cache and database
 * size) and take turns going first; the first rounds warm up and are not counted. Parents are
 * activated before their turn (cold activation has its own figure); children are not, since
 * making them is part of a fan-out.
 */
export async function fanOut(rounds: number, width = 10) {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"));
  const probe = fanOutProbe(width);
  const { runtime, createAgents } = benchRuntime(store, {
    types: builtinTypes(PARENT_TYPE, CHILD_TYPE),
    script: probe.script,
  });
  try {
    const warmup = Math.max(2, Math.round(rounds / 10));
    const parents = await createAgents(warmup + rounds, PARENT_TYPE);
    const plain = await createAgents(width, CHILD_TYPE);
    const toAll: number[] = [];
    const toFirst: number[] = [];
    const fanTurns: number[] = [];
    const plainRounds: number[] = [];
    for (const [i, parent] of parents.entries()) {
      await runtime.session(parent);
      const fanTurn = () => timedRun(() => runtime.send(parent, { content: "split the work" }));
      const plainTurns = () =>
        timedRun(() =>
          Promise.all(plain.map((id) => runtime.send(id, { content: `question ${i}` }))),
        );
      // The side that goes second may pay for the first one's garbage: they take turns.
      let fanMs: number;
      let plainMs: number;
      if (i % 2 === 0) {
        fanMs = await fanTurn();
        plainMs = await plainTurns();
      } else {
        plainMs = await plainTurns();
        fanMs = await fanTurn();
      }
      const round = probe.endRound();
      if (i < warmup) continue;
      toAll.push(round.spawnToAllRunningMs);
      toFirst.push(round.spawnToFirstRunningMs);
      fanTurns.push(fanMs);
      plainRounds.push(plainMs);
    }
    await runtime.shutdown();
    const fan = byOwnTime(fanTurns);
    const tenPlain = byOwnTime(plainRounds);
    return {
      width,
      warmupRounds: warmup,
      spawnToAllRunning: byOwnTime(toAll),
      spawnToFirstRunning: byOwnTime(toFirst),
      fanOutTurn: fan,
      plainTurnsAtOnce: tenPlain,
      overheadRatioP50: fan.p50Ms / tenPlain.p50Ms,
      overheadRatioP99: fan.p99Ms / tenPlain.p99Ms,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Times a run (or runs), checking that each ended with an answer. */
async function timedRun(run: () => Promise<RunOutcome | RunOutcome[]>): Promise<number> {
  const start = performance.now();
  const outcomes = [await run()].flat();
  const elapsedMs = performance.now() - start;
  for (const outcome of outcomes) {
    assert(outcome.stopReason === "end_turn", `a bench run stopped with ${outcome.stopReason}`);
  }
  return elapsedMs;
}

/** Built-in types, as they ship, for the bench's registry. */
function builtinTypes(...names: string[]): AgentType[] {
  const registry = builtinConfig().registry;
  return names.map((name) => {
    const type = registry.get(name);
    if (!type) throw new Error(`built-in type ${name} missing`);
    return type;
  });
}
