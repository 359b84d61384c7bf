import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import type { TimerRecord } from "../records/agent-record.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";
import { TimerLoop } from "./timer-loop.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the timer loop", () => {
  // Regression, found by DST (seed 1, mixed faults): one failed store read rejected the loop's
  // promise, which nobody awaited, and the unhandled rejection took the whole process down.
  it("survives a store failure and still fires the timer afterwards", async () => {
    const disk = createInMemoryStore();
    let failures = 1;
    const store: Store = Object.create(disk, {
      dueTimers: {
        value: async (nowMs: number) => {
          if (failures-- > 0) throw new Error("storage unavailable");
          return disk.dueTimers(nowMs);
        },
      },
    });
    const clock = new ManualClock();
    await disk.createAgent({
      agent: {
        id: "agent-1",
        project_id: "p",
        name: "a",
        agent_type: "letta_v1_agent",
        overrides: {},
        tool_rules: [],
        tags: [],
        metadata: {},
        created_at_ms: 0,
        updated_at_ms: 0,
      },
      blocks: [],
    });
    await disk.putTimer({ agent_id: "agent-1", kind: "wake", due_at_ms: clock.now() + 500 });
    const fired: TimerRecord[] = [];
    const loop = new TimerLoop(store, clock, async (timer) => fired.push(timer));
    loop.start();
    for (let i = 0; i < 10; i += 1) {
      await tick();
      clock.advance(250);
    }
    loop.stop();
    expect(fired.map((t) => t.kind)).toEqual(["wake"]);
  });
});
