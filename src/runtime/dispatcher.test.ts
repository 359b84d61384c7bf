import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import { BusyError } from "./busy-error.js";
import { Dispatcher } from "./dispatcher.js";

function tracked(
  options: { maxActivations?: number; mailboxCapacity?: number; idleMs?: number } = {},
) {
  const clock = new ManualClock();
  const live = new Map<string, number>();
  const log: string[] = [];
  let peakTotal = 0;
  const dispatcher = new Dispatcher<{ id: string }>({
    maxActivations: options.maxActivations ?? 100,
    mailboxCapacity: options.mailboxCapacity ?? 1000,
    idleMs: options.idleMs ?? 60_000,
    clock,
    activate: async (id) => {
      const count = (live.get(id) ?? 0) + 1;
      if (count > 1) throw new Error(`second activation of ${id}`);
      live.set(id, count);
      peakTotal = Math.max(
        peakTotal,
        [...live.values()].reduce((a, b) => a + b, 0),
      );
      log.push(`activate ${id}`);
      return { id };
    },
    deactivate: async (id) => {
      live.set(id, (live.get(id) ?? 1) - 1);
      if (live.get(id) === 0) live.delete(id);
      log.push(`deactivate ${id}`);
    },
  });
  return { dispatcher, clock, live, log, peak: () => peakTotal };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the dispatcher", () => {
  it("runs one agent's messages one at a time, in the order they arrived", async () => {
    const { dispatcher } = tracked();
    const seen: number[] = [];
    let running = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        dispatcher.submit("a", async () => {
          running += 1;
          expect(running).toBe(1);
          await tick();
          seen.push(i);
          running -= 1;
        }),
      ),
    );
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("keeps per-agent order, one activation per agent and the bound, under any interleaving", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d", "e"), fc.nat(3)), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 3 }),
        async (messages, max) => {
          const { dispatcher, peak } = tracked({ maxActivations: max });
          const order = new Map<string, number[]>();
          await Promise.all(
            messages.map(([agent, delay], i) =>
              dispatcher.submit(agent, async (activation) => {
                expect(activation.id).toBe(agent);
                for (let t = 0; t < delay; t += 1) await tick();
                order.set(agent, [...(order.get(agent) ?? []), i]);
              }),
            ),
          );
          for (const seen of order.values()) expect(seen).toEqual([...seen].sort((x, y) => x - y));
          expect(peak()).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("answers a full mailbox with a retryable busy error", async () => {
    const { dispatcher } = tracked({ mailboxCapacity: 2 });
    let release: () => void = () => {};
    const blocked = dispatcher.submit(
      "a",
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    await tick();
    const queued = [dispatcher.submit("a", async () => {}), dispatcher.submit("a", async () => {})];
    const refused = dispatcher.submit("a", async () => {});
    await expect(refused).rejects.toBeInstanceOf(BusyError);
    await expect(refused).rejects.toMatchObject({ retryable: true, retryAfterMs: 1000 });
    release();
    await Promise.all([blocked, ...queued]);
  });

  it("deactivates an agent after it has been idle, and activates it again on the next message", async () => {
    const { dispatcher, clock, log } = tracked({ idleMs: 1000 });
    await dispatcher.submit("a", async () => {});
    await tick();
    clock.advance(999);
    await tick();
    expect(dispatcher.isActive("a")).toBe(true);
    clock.advance(1);
    await tick();
    expect(dispatcher.isActive("a")).toBe(false);
    await dispatcher.submit("a", async () => {});
    expect(log).toEqual(["activate a", "deactivate a", "activate a"]);
  });

  it("evicts idle agents first to stay within the bound", async () => {
    const { dispatcher, log } = tracked({ maxActivations: 2 });
    await dispatcher.submit("a", async () => {});
    await dispatcher.submit("b", async () => {});
    await dispatcher.submit("c", async () => {});
    expect(dispatcher.activeCount).toBe(2);
    expect(log).toEqual(["activate a", "activate b", "deactivate a", "activate c"]);
  });

  it("drains queued work on shutdown, then refuses new work", async () => {
    const { dispatcher, live } = tracked();
    const done: string[] = [];
    const work = ["a", "b", "a"].map((id, i) =>
      dispatcher.submit(id, async () => {
        await tick();
        done.push(`${id}${i}`);
      }),
    );
    await dispatcher.shutdown();
    await Promise.all(work);
    expect(done.sort()).toEqual(["a0", "a2", "b1"]);
    expect(live.size).toBe(0);
    await expect(dispatcher.submit("a", async () => {})).rejects.toBeInstanceOf(BusyError);
  });

  it("passes a failed activation to the message and tries again next time", async () => {
    let attempts = 0;
    const dispatcher = new Dispatcher<string>({
      maxActivations: 10,
      mailboxCapacity: 10,
      idleMs: 1000,
      clock: new ManualClock(),
      activate: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("store down");
        return "ok";
      },
    });
    await expect(dispatcher.submit("a", async (a) => a)).rejects.toThrow("store down");
    await expect(dispatcher.submit("a", async (a) => a)).resolves.toBe("ok");
  });
});
