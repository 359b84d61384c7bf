import { describe, expect, it } from "vitest";
import type { RunRecord } from "../src/records/agent-record.js";
import { runSeed } from "../src/sim/run-seed.js";
import type { NewAgent, Store } from "../src/storage/store.js";

/** A disk whose `method` is replaced; the mutants exist only here, never behind a switch. */
const overriding = <K extends keyof Store>(disk: Store, method: K, value: Store[K]): Store =>
  Object.create(disk, { [method]: { writable: true, configurable: true, value } });

const spawned = (created: NewAgent) => created.agent.parent_id !== null;

/** The first seed (of the first 40, mixed faults) whose violations match, with a replay. */
async function caught(mutateStore: (disk: Store) => Store, pattern: RegExp) {
  for (let seed = 1; seed <= 40; seed += 1) {
    const result = await runSeed({ seed, faults: "mixed", mutateStore });
    if (!result.violations.some((v) => pattern.test(v))) continue;
    const replay = await runSeed({ seed, faults: "mixed", mutateStore });
    expect(replay.violations).toEqual(result.violations);
    return result.violations.find((v) => pattern.test(v));
  }
  return undefined;
}

describe("deterministic simulation of sub-agents: the spawn invariants catch", () => {
  it("a spawn call that made two children", async () => {
    const twins = (disk: Store) =>
      overriding(disk, "createAgent", async (created: NewAgent) => {
        await disk.createAgent(created);
        if (!spawned(created)) return;
        const twin = `${created.agent.id}-twin`;
        await disk.createAgent({
          agent: { ...created.agent, id: twin },
          blocks: created.blocks.map((block) => ({ ...block, id: `${block.id}-twin` })),
        });
      });
    expect(await caught(twins, /made 2 children/)).toBeDefined();
  });

  it("a parent that took a child's answer before the child's run ended", async () => {
    // The parent hears of a child's task run as ended while it still runs.
    const early = (disk: Store) =>
      overriding(disk, "findRunByKey", async (agentId: string, key: string) => {
        const run = await disk.findRunByKey(agentId, key);
        if (run?.status !== "running" || !key.startsWith("spawn:")) return run;
        const ended: RunRecord = {
          ...run,
          status: "completed",
          stop_reason: "end_turn",
          completed_at_ms: run.created_at_ms,
        };
        return ended;
      });
    expect(await caught(early, /before the child's run ended/)).toBeDefined();
  });

  it("a child allowed to spawn as deep as its parent", async () => {
    // The engine forgets to lower a child's spawn depth: chains grow past the root's limit.
    const deep = (disk: Store) =>
      overriding(disk, "createAgent", (created: NewAgent) => {
        if (!spawned(created)) return disk.createAgent(created);
        const { limits: _dropped, ...overrides } = created.agent.overrides;
        return disk.createAgent({ ...created, agent: { ...created.agent, overrides } });
      });
    expect(await caught(deep, /may spawn \d deep under a parent|under a root limit/)).toBeDefined();
  });

  it("a child offered a tool its parent denies, or asked for approval less often", async () => {
    // The engine forgets the tool policy a parent holds its children to.
    const lax = (disk: Store) =>
      overriding(disk, "createAgent", (created: NewAgent) => {
        if (!spawned(created)) return disk.createAgent(created);
        const { tools: _dropped, ...overrides } = created.agent.overrides;
        return disk.createAgent({ ...created, agent: { ...created.agent, overrides } });
      });
    expect(await caught(lax, /which its parent's type denies|with approval/)).toBeDefined();
  });
});
