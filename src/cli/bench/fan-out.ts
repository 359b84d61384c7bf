import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import type { SimScript } from "../../llm/sim/sim-model.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import type { AgentType } from "../../types/agent-type.js";
import { benchRuntime } from "./bench-setup.js";
import { summarize, type Timings, timed } from "./measure.js";

/**
 * One parent spawns `width` children in one model response; every model answers at once. Per
 * round: the time from the parent's spawn response to the last child's first model call (all
 * children running), the whole fan-out turn, and beside it `width` independent plain turns on
 * as many agents at once — the overhead of spawning is the difference.
 */
export async function fanOut(rounds: number, width = 10) {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"));
  let spawnedAt = 0;
  let lastChildStart = 0;
  const script: SimScript = (request) => {
    if (!request.tools.some((tool) => tool.name === "spawn_agent")) {
      lastChildStart = performance.now();
      return { text: "part done" };
    }
    if (request.messages.at(-1)?.role !== "user") return { text: "all parts done" };
    spawnedAt = performance.now();
    const args = (i: number) => ({ agent_type: "bench_child", prompt: `part ${i}` });
    return {
      toolCalls: Array.from({ length: width }, (_, i) => ({ name: "spawn_agent", args: args(i) })),
    };
  };
  const { runtime, createAgents } = benchRuntime(store, { types: benchTypes(), script });
  try {
    const toRunning: number[] = [];
    const fanTurns: number[] = [];
    const plainRounds: number[] = [];
    const parents = await createAgents(rounds, "bench_parent");
    const plain = await createAgents(width, "bench_child");
    const start = performance.now();
    for (const parent of parents) {
      fanTurns.push(await timed(() => runtime.send(parent, { content: "split the work" })));
      toRunning.push(lastChildStart - spawnedAt);
    }
    const fanTotal = performance.now() - start;
    const plainStart = performance.now();
    for (let i = 0; i < rounds; i += 1) {
      plainRounds.push(
        await timed(() => Promise.all(plain.map((id) => runtime.send(id, { content: `q ${i}` })))),
      );
    }
    const plainTotal = performance.now() - plainStart;
    await runtime.shutdown();
    const fan: Timings = summarize(fanTurns, fanTotal);
    const tenPlain: Timings = summarize(plainRounds, plainTotal);
    return {
      width,
      spawnToAllRunning: summarize(toRunning, fanTotal),
      fanOutTurn: fan,
      plainTurnsAtOnce: tenPlain,
      overheadRatioP50: fan.p50Ms / tenPlain.p50Ms,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A parent that may spawn (one level) and a child with no tools, on the built-in types. */
function benchTypes(): AgentType[] {
  const registry = builtinConfig().registry;
  const orchestrator = registry.get("orchestrator");
  const qa = registry.get("qa_assistant");
  if (!orchestrator || !qa) throw new Error("built-in types missing");
  return [
    {
      ...orchestrator,
      name: "bench_parent",
      limits: { ...orchestrator.limits, max_spawn_depth: 1 },
    },
    { ...qa, name: "bench_child" },
  ];
}
