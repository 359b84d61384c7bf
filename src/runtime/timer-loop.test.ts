import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import type { TimerRecord } from "../records/agent-record.js";
import { agentRecord } from "../storage/contract/fixtures.js";
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
    await disk.createAgent({ agent: agentRecord("agent-1"), blocks: [] });
    await disk.putTimer({ agent_id: "agent-1", kind: "wake", due_at_ms: clock.now() + 500 });
    const fired: TimerRecord[] = [];
    // As the runtime does, a wake-up that ran clears (or moves) its timer.
    const loop = new TimerLoop(store, clock, async (timer) => {
      fired.push(timer);
      await disk.clearTimer(timer.agent_id, timer.kind);
    });
    loop.start();
    for (let i = 0; i < 10; i += 1) {
      await tick();
      clock.advance(250);
    }
    loop.stop();
    expect(fired.map((t) => t.kind)).toEqual(["wake"]);
  });

  // Regression (code review): a timer was cleared before its wake-up ran, so a wake-up that
  // failed (a busy store, a crash) was lost and the agent never woke.
  it("keeps a timer whose wake-up failed, and fires it again", async () => {
    const disk = createInMemoryStore();
    const clock = new ManualClock();
    await disk.createAgent({ agent: agentRecord("agent-1"), blocks: [] });
    await disk.putTimer({ agent_id: "agent-1", kind: "wake", due_at_ms: clock.now() + 100 });
    let attempts = 0;
    const loop = new TimerLoop(disk, clock, async (timer) => {
      attempts += 1;
      if (attempts === 1) throw new Error("store busy");
      await disk.clearTimer(timer.agent_id, timer.kind);
    });
    loop.start();
    for (let i = 0; i < 20; i += 1) {
      await tick();
      clock.advance(500);
    }
    loop.stop();
    expect(attempts).toBe(2);
    expect(await disk.nextTimer()).toBeNull();
  });
});

describe("a timer nobody clears", () => {
  it("fires again only after a pause, instead of spinning on it", async () => {
    const disk = createInMemoryStore();
    const clock = new ManualClock();
    await disk.createAgent({ agent: agentRecord("agent-1"), blocks: [] });
    await disk.putTimer({ agent_id: "agent-1", kind: "wake", due_at_ms: clock.now() });
    let fires = 0;
    const loop = new TimerLoop(disk, clock, async () => {
      fires += 1;
    });
    loop.start();
    for (let i = 0; i < 10; i += 1) {
      await tick();
      clock.advance(500);
    }
    loop.stop();
    // About one fire a second over five seconds, not thousands.
    expect(fires).toBeGreaterThan(1);
    expect(fires).toBeLessThan(10);
  });
});
