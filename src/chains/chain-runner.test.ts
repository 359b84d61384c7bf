import { describe, expect, it } from "vitest";
import { checkConfig, type HoldfastConfig } from "../config/config-file.js";
import { sequentialIds } from "../core/ids.js";
import { ManualClock } from "../core/manual-clock.js";
import { createSimModel } from "../llm/sim/sim-model.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";
import { builtinToolImplementations } from "../tools/registry.js";
import { newChainRun } from "./chain-record.js";
import { ChainRunner } from "./chain-runner.js";

const stage = (name: string, agents: string[]) => ({
  name,
  agents: agents.map((agent) => ({ type: "qa_assistant", name: agent })),
});

function configOf(chains: Record<string, unknown>): HoldfastConfig {
  const checked = checkConfig({ chains });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

/** A runner on the sim model (it echoes its task) over `store`, as one process would have. */
async function boot(store: Store, config: HoldfastConfig) {
  const clock = new ManualClock();
  const ids = sequentialIds();
  const engine = new EmbeddedEngine({
    store,
    config,
    ids,
    tools: builtinToolImplementations({ mode: "none" }),
    modelFor: () => createSimModel(),
    defaultModel: "sim/demo",
    workspaceFor: (_record, isolation) => ({
      root: null,
      readOnly: isolation.read_only,
      network: isolation.network,
    }),
    clock,
  });
  await engine.start();
  const runner = new ChainRunner({ store, engine, config, ids, clock });
  return { runner, engine, failures: await runner.resume() };
}

describe("carrying chain runs on after a restart", () => {
  it("fails, with the reason, a run whose chain lost a stage or is gone; carries on the rest", async () => {
    const store = createInMemoryStore();
    const before = configOf({
      steady: { stages: [stage("one", ["a"])] },
      shifting: { stages: [stage("one", ["a"]), stage("two", ["b"])] },
      dropped: { stages: [stage("one", ["a"])] },
    });
    const first = await boot(store, before);
    const chain = (name: string) => before.chains.get(name) ?? (undefined as never);
    // Stored, never driven: as if the process died right after storing them.
    first.runner.shutdown();
    await first.engine.shutdown();
    const runs = await Promise.all(
      ["steady", "shifting", "dropped"].map(async (name) => {
        const run = newChainRun(chain(name), {
          id: `run-${name}`,
          projectId: "p",
          input: "x",
          nowMs: 0,
        });
        await store.putChainRun(run);
        return run.id;
      }),
    );

    const after = configOf({
      steady: { stages: [stage("one", ["a"])] },
      shifting: { stages: [stage("one", ["a"]), stage("three", ["b"])] },
    });
    const second = await boot(store, after);
    expect(second.failures).toEqual([
      {
        runId: "run-shifting",
        error: "chain 'shifting' changed (stages or agents) since this run began",
      },
      { runId: "run-dropped", error: "chain 'dropped' is no longer configured" },
    ]);
    const steady = await second.runner.settled(runs[0] ?? "");
    expect(steady.status).toBe("completed");
    expect(steady.stages[0]?.output).toBe("You said: x");
    const shifting = await store.getChainRun("run-shifting");
    expect(shifting).toMatchObject({
      status: "failed",
      error: { stage: null, message: expect.stringContaining("changed") },
    });
    expect(shifting?.stages.map((s) => s.status)).toEqual(["skipped", "skipped"]);
    expect(await store.unfinishedChainRuns()).toEqual([]);
    await second.engine.shutdown();
  });
});
