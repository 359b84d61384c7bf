import { describe, expect, it } from "vitest";
import type { ChainRunRecord } from "../src/records/chain-run.js";
import { runSeed } from "../src/sim/run-seed.js";
import type { NewAgent, Store } from "../src/storage/store.js";

/** A disk whose `method` is replaced; the mutants exist only here, never behind a switch. */
const overriding = <K extends keyof Store>(disk: Store, method: K, value: Store[K]): Store =>
  Object.create(disk, { [method]: { writable: true, configurable: true, value } });

/** A disk that rewrites every chain run it is given before keeping it. */
const rewritingRuns = (rewrite: (run: ChainRunRecord) => ChainRunRecord) => (disk: Store) =>
  overriding(disk, "putChainRun", (run: ChainRunRecord) =>
    disk.putChainRun(rewrite(structuredClone(run))),
  );

/** The first seed (of the first 30, mixed faults) whose violations match, with a replay. */
async function caught(mutateStore: (disk: Store) => Store, pattern: RegExp) {
  for (let seed = 1; seed <= 30; seed += 1) {
    const result = await runSeed({ seed, faults: "mixed", mutateStore });
    if (!result.violations.some((v) => pattern.test(v))) continue;
    const replay = await runSeed({ seed, faults: "mixed", mutateStore });
    expect(replay.violations).toEqual(result.violations);
    return result.violations.find((v) => pattern.test(v));
  }
  return undefined;
}

/** What every seed set below must have done to chains at least once. */
const EXERCISED = [
  "chain_runs_started",
  "chain_runs_completed",
  "chain_runs_failed",
  "chain_runs_cancelled",
  "chain_cancels",
  "chain_approvals",
  "chain_denials",
  "crashes_mid_chain",
  "chain_agent_messages",
  "chain_scores_missing",
  "chain_scores_below",
] as const;

describe("deterministic simulation of chains", () => {
  it("holds every chain invariant over seeds with mixed and heavy faults", {
    timeout: 60_000,
  }, async () => {
    const seen: Record<string, number> = {};
    const failing = [];
    for (const [from, to, faults] of [
      [1, 52, "mixed"],
      [1, 30, "heavy"],
    ] as const) {
      for (let seed = from; seed <= to; seed += 1) {
        const result = await runSeed({ seed, faults });
        for (const [what, n] of Object.entries(result.orchestration))
          seen[what] = (seen[what] ?? 0) + n;
        if (!result.ok) failing.push({ seed, faults, violations: result.violations });
      }
    }
    expect(failing).toEqual([]);
    for (const what of EXERCISED) expect(seen[what], what).toBeGreaterThan(0);
  });

  // Each seed here once failed, for a real bug (in the simulation or the runner); they must stay green.
  it.each([
    [
      252,
      "heavy",
      "a boot overtaken by another started a second chain runner: a run had two drivers",
    ],
  ] as const)("regression: seed %i (%s faults): %s", async (seed, faults) => {
    const result = await runSeed({ seed, faults });
    expect(result.violations).toEqual([]);
  });

  it("gives the same trace for the same seed while chains run", async () => {
    for (const seed of [5, 12]) {
      const first = await runSeed({ seed, faults: "heavy" });
      const again = await runSeed({ seed, faults: "heavy" });
      expect(first.orchestration.chain_runs_started).toBeGreaterThan(0);
      expect(again.traceHash).toBe(first.traceHash);
      expect(again.orchestration).toEqual(first.orchestration);
    }
  });
});

describe("deterministic simulation of chains: the chain invariants catch", () => {
  it("(1) a stage agent made twice for the same run, stage and name", async () => {
    const twins = (disk: Store) =>
      overriding(disk, "createAgent", async (created: NewAgent) => {
        await disk.createAgent(created);
        if (typeof created.agent.metadata.chain_run_id !== "string") return;
        await disk.createAgent({
          agent: { ...created.agent, id: `${created.agent.id}-twin` },
          blocks: created.blocks.map((block) => ({ ...block, id: `${block.id}-twin` })),
        });
      });
    expect(await caught(twins, /two agents for chainrun-/)).toBeDefined();
  });

  it("(2) a stage recorded as begun before the stage before it ended", async () => {
    const hasty = rewritingRuns((run) => {
      const first = run.stages[0]?.started_at_ms ?? null;
      for (const stage of run.stages.slice(1))
        if (stage.started_at_ms !== null) stage.started_at_ms = first;
      return run;
    });
    expect(await caught(hasty, /stage \w+ of \S+ began at \d+, before/)).toBeDefined();
  });

  it("(3) a finished run that lost a completed stage's output", async () => {
    const forgetful = rewritingRuns((run) => {
      if (run.status !== "running") for (const stage of run.stages) stage.output = null;
      return run;
    });
    expect(await caught(forgetful, /stage \w+ completed without an output/)).toBeDefined();
  });

  it("(4) a run that failed on its score, kept as completed", async () => {
    const lenient = rewritingRuns((run) =>
      run.status === "failed" && run.score && !run.score.passed
        ? { ...run, status: "completed", error: null }
        : run,
    );
    expect(
      await caught(lenient, /completed with (score \d+ < \d+|no score|a score that did not pass)/),
    ).toBeDefined();
  });

  it("(5) a completed run whose 'any' stage had no success", async () => {
    const luckless = rewritingRuns((run) => {
      if (run.status !== "completed" || !["race", "hasty"].includes(run.chain)) return run;
      for (const agent of run.stages[0]?.agents ?? []) agent.status = "failed";
      return run;
    });
    expect(await caught(luckless, /no agent of its 'any' stage/)).toBeDefined();
  });

  it("(6) a run whose end is never written", async () => {
    const unfinished = rewritingRuns((run) =>
      run.status === "completed" ? { ...run, status: "running", completed_at_ms: null } : run,
    );
    expect(await caught(unfinished, /chain run \S+ is still running/)).toBeDefined();
  });
});
