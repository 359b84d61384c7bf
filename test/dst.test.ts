import { describe, expect, it } from "vitest";
import type { FaultProfile } from "../src/sim/fault-plan.js";
import { runSeed } from "../src/sim/run-seed.js";
import type { Store } from "../src/storage/store.js";
import type { StepCommit } from "../src/storage/turn-store.js";

const failing = async (
  seeds: number[],
  options: Omit<Parameters<typeof runSeed>[0], "seed">,
  each: (result: Awaited<ReturnType<typeof runSeed>>) => void = () => {},
) => {
  const out = [];
  for (const seed of seeds) {
    const result = await runSeed({ ...options, seed });
    each(result);
    if (!result.ok) out.push({ seed, violations: result.violations });
  }
  return out;
};
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Seeds that still fail for an engine bug not yet fixed; skipped below, kept out of CI ranges. */
const KNOWN_ENGINE_BUGS: readonly (readonly [number, FaultProfile, string])[] = [];
/** Seeds the orchestration workload failed on, for engine bugs since fixed. */
const FIXED_ENGINE_BUGS = [
  [1, "heavy", "a parent whose cancel failed after its children were cancelled was never woken"],
  [6, "heavy", "a run handed over while a child was out waited for a child that reports elsewhere"],
  [101, "mixed", "a run handed over while a child was out sent that child a task of its own"],
  [1744, "heavy", "a child's task delivered after its parent was deleted ran on as an orphan"],
  [4663, "mixed", "a child's task delivered again after its parent was cancelled ran on"],
  [5765, "mixed", "a parent whose cancel failed after its children were cancelled was never woken"],
  [429, "heavy", "a child's task that started while its parent was being cancelled ran on"],
  [1168, "heavy", "a child's task that started while its parent was being deleted ran on"],
] as const;
const known = (faults: string) =>
  new Set<number>(KNOWN_ENGINE_BUGS.filter(([, f]) => f === faults).map(([seed]) => seed));
const ciRange = (from: number, to: number, faults: string) =>
  range(from, to).filter((seed) => !known(faults).has(seed));

const DISRUPTIONS = [
  "children",
  "refused_at_limit",
  "approvals_through_parent",
  "cancels_mid_spawn",
  "crashes_mid_spawn",
  "child_messages",
] as const;

describe("deterministic simulation", () => {
  it("passes a CI-sized set of seeds with mixed and heavy faults, sub-agents included", {
    timeout: 120_000,
  }, async () => {
    const seen: Record<string, number> = {};
    const count = (result: Awaited<ReturnType<typeof runSeed>>) => {
      for (const [what, n] of Object.entries(result.orchestration))
        seen[what] = (seen[what] ?? 0) + n;
    };
    expect(await failing(ciRange(1, 90, "mixed"), { faults: "mixed" }, count)).toEqual([]);
    expect(await failing(ciRange(1, 45, "heavy"), { faults: "heavy" }, count)).toEqual([]);
    // The orchestration workload did its job: every kind of disturbance happened somewhere.
    for (const what of DISRUPTIONS) expect(seen[what], what).toBeGreaterThan(0);
    // Clients answered calls of their own tools (issue #12), crashes and faults among them.
    expect(seen.client_tool_returns).toBeGreaterThan(0);
  });

  it("covers the plan's matrix: no faults, 100 concurrent agents, many messages to one agent", {
    timeout: 120_000,
  }, async () => {
    expect(await failing(range(1, 20), { faults: "none" })).toEqual([]);
    expect(await failing(range(1, 3), { faults: "mixed", shape: "many_agents" })).toEqual([]);
    expect(await failing(range(1, 5), { faults: "heavy", shape: "many_messages" })).toEqual([]);
  });

  it("gives the same trace for the same seed, and different traces for different seeds", async () => {
    const hashes = [];
    for (const seed of [3, 17, 42]) {
      const first = await runSeed({ seed, faults: "heavy" });
      const again = await runSeed({ seed, faults: "heavy" });
      expect(again.traceHash).toBe(first.traceHash);
      expect(again.faults).toEqual(first.faults);
      hashes.push(first.traceHash);
    }
    expect(new Set(hashes).size).toBe(3);
  });

  it("catches a store that skips a checkpoint, and the same seed reproduces it", {
    timeout: 120_000,
  }, async () => {
    // The mutant exists only here: a disk that acknowledges every 9th commit without keeping it.
    const skipping = (disk: Store): Store => {
      let commits = 0;
      return Object.create(disk, {
        commit: {
          writable: true,
          configurable: true,
          value: async (step: StepCommit) => {
            commits += 1;
            if (commits % 9 === 0) return;
            return disk.commit(step);
          },
        },
      });
    };
    const caught = [];
    for (const seed of range(1, 40)) {
      const result = await runSeed({ seed, faults: "none", mutateStore: skipping });
      if (!result.ok) caught.push(result);
      if (caught.length > 0) break;
    }
    expect(caught.length).toBeGreaterThan(0);
    const first = caught[0];
    if (!first) return;
    const replay = await runSeed({ seed: first.seed, faults: "none", mutateStore: skipping });
    expect(replay.ok).toBe(false);
    expect(replay.traceHash).toBe(first.traceHash);
    expect(replay.violations).toEqual(first.violations);
  });

  it("catches a store that keeps a waiting session's checkpoint but loses its wake-up", {
    timeout: 120_000,
  }, async () => {
    // The old engine's bug, as a mutant: the timer written apart from the checkpoint, and lost.
    const losingWakeUps = (disk: Store): Store =>
      Object.create(disk, {
        commit: {
          writable: true,
          configurable: true,
          value: async (step: StepCommit) => {
            await disk.commit(step);
            await disk.clearTimer(step.agentId, "wake");
            await disk.clearTimer(step.agentId, "approval_expiry");
          },
        },
      });
    const caught = [];
    for (const seed of range(1, 40)) {
      const result = await runSeed({ seed, faults: "none", mutateStore: losingWakeUps });
      if (!result.ok) caught.push(...result.violations);
      if (caught.length > 0) break;
    }
    expect(caught.join("\n")).toMatch(
      /is (paused|awaiting_approval) with no (wake|approval_expiry) timer/,
    );
  });

  it("catches a store that forgets a call was started, so a restart runs it again (issue #12)", {
    timeout: 120_000,
  }, async () => {
    // The mutant: the mark written before a tool that is not idempotent runs is lost.
    const forgettingStarts = (disk: Store): Store =>
      Object.create(disk, {
        commit: {
          writable: true,
          configurable: true,
          value: async (step: StepCommit) => {
            const pending = step.state.pending.map((call) =>
              call.status === "started" ? { ...call, status: "pending" as const } : call,
            );
            return disk.commit({ ...step, state: { ...step.state, pending } });
          },
        },
      });
    const caught = [];
    for (const seed of range(1, 200).filter((seed) => seed % 2 === 1)) {
      const result = await runSeed({ seed, faults: "mixed", mutateStore: forgettingStarts });
      if (!result.ok) caught.push(...result.violations);
      if (caught.length > 0) break;
    }
    expect(caught.join("\n")).toMatch(/of a tool that is not idempotent ran [2-9] times/);
  });

  // Each seed here once failed, for a real bug; they must stay green.
  it.each([
    [1, "mixed", "the timer loop died on a failed store read, taking the process down"],
    [22, "mixed", "a handed-over session duplicated its messages when handed back"],
    [223, "mixed", "a handed-over session kept a run its new agent could not update"],
    [3223, "heavy", "a failed run whose session reload also failed ran its steps again"],
    [61, "mixed", "sub-agents: a resumed parent waited for a stop it had just published"],
    [288, "mixed", "sub-agents: a child whose turn failed part-way was never carried on"],
    [407, "mixed", "sub-agents: a failure after a child's run ended never woke its parent"],
    [477, "heavy", "sub-agents: a dead process retried forever; a parent's undelivered child"],
    [500, "heavy", "sub-agents: a grandchild cut short was never resumed after a restart"],
    [8087, "heavy", "sub-agents: a crash between cancelling a parent and its child left an orphan"],
    [5604, "mixed", "sub-agents: a child whose cancel failed before a crash ran on as an orphan"],
    // The two above, found again with the orchestration workload (it draws differently now).
    [193, "heavy", "sub-agents: a cancelled parent's child, itself waiting for children, ran on"],
    [1118, "heavy", "sub-agents: a child of a cancelled parent ran on as an orphan"],
  ] as const)("regression: seed %i (%s faults): %s", async (seed, faults, _what) => {
    const result = await runSeed({ seed, faults });
    expect(result.violations).toEqual([]);
  });

  // Each seed has an orchestrator's family crashed, cancelled, messaged and asked for approvals
  // while its sub-agents ran, with spawns refused at the depth limit.
  it.each([
    [1, "mixed"],
    // Was 49: since steps write step records (issue #14), that seed no longer crashes mid-spawn;
    // 3 does everything.
    [3, "mixed"],
    [69, "mixed"],
    // Was 1: since a deleted or cancelled parent's late children are stopped, that seed no
    // longer cancels mid-spawn; 50 does everything.
    [40, "heavy"],
    [50, "heavy"],
    // Was 69: since messages offer client tools (issue #12), that seed no longer asks for
    // approvals through a parent; 49 does everything.
    [49, "heavy"],
  ] as const)(
    "orchestration: seed %i (%s faults) disturbs sub-agents every way and holds",
    async (seed, faults) => {
      const result = await runSeed({ seed, faults });
      expect(result.violations).toEqual([]);
      for (const what of DISRUPTIONS) expect(result.orchestration[what], what).toBeGreaterThan(0);
      expect(result.orchestration.deepest).toBe(2);
    },
  );

  // Reported engine bugs; each case passes once the engine is fixed (then drop the skip).
  it.each(FIXED_ENGINE_BUGS)("regression: seed %i (%s faults): %s", async (seed, faults) => {
    const result = await runSeed({ seed, faults });
    expect(result.violations).toEqual([]);
  });

  // (vitest refuses an empty table, so the skipped cases exist only while there are bugs)
  if (KNOWN_ENGINE_BUGS.length > 0)
    it.skip.each(KNOWN_ENGINE_BUGS)("engine bug: seed %i (%s faults): %s", async (seed, faults) => {
      const result = await runSeed({ seed, faults });
      expect(result.violations).toEqual([]);
    });
});
