import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import { type Grant, RateLimiter } from "./rate-limiter.js";

/** Lets granted promises settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Queues `calls` as [key, tokens?] and records the order grants arrive in. */
function queueAll(limiter: RateLimiter, calls: string[], signal?: AbortSignal) {
  const order: string[] = [];
  const grants: Grant[] = [];
  const settled = calls.map((key) =>
    limiter.acquire(key, 1, signal).then(
      (grant) => {
        order.push(key);
        grants.push(grant);
        return grant;
      },
      (error: unknown) => error,
    ),
  );
  return { order, grants, settled };
}

describe("RateLimiter", () => {
  it("grants at once while under the limits, and never more at once than `concurrent`", async () => {
    const limiter = new RateLimiter({ concurrent: 2 }, new ManualClock());
    const { order, grants } = queueAll(limiter, ["a", "b", "c"]);
    await settle();
    expect(order).toEqual(["a", "b"]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 2, queued: 1 });
    grants[0]?.release({});
    await settle();
    expect(order).toEqual(["a", "b", "c"]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 2, queued: 0 });
  });

  it("serves agents round-robin, so one with many calls queued does not starve the others", async () => {
    const limiter = new RateLimiter({ concurrent: 1 }, new ManualClock());
    const calls = ["holder", "busy", "busy", "busy", "busy", "a", "b"];
    const { order, grants } = queueAll(limiter, calls);
    for (let i = 0; i < calls.length; i++) {
      await settle();
      grants[i]?.release({});
    }
    await settle();
    expect(order).toEqual(["holder", "busy", "a", "b", "busy", "busy", "busy"]);
  });

  it("counts the grants made to others while a call waited", async () => {
    const limiter = new RateLimiter({ concurrent: 1 }, new ManualClock());
    const { grants } = queueAll(limiter, ["a", "b", "c"]);
    for (let i = 0; i < 3; i++) {
      await settle();
      grants[i]?.release({});
    }
    expect(grants.map((grant) => grant.waitedGrants)).toEqual([0, 0, 1]);
  });

  it("halves the concurrency once per burst of 429s, waits out retry-after, then climbs back", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ concurrent: 8 }, clock);
    const first = queueAll(limiter, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    await settle();
    for (const grant of first.grants.slice(0, 3)) {
      grant.release({ rateLimited: { retryAfterMs: 2_000 } });
    }
    expect(limiter.snapshot().limit).toBe(4);
    const second = queueAll(limiter, ["x", "y", "z"]);
    for (const grant of first.grants.slice(3)) grant.release({});
    await settle();
    expect(second.order).toEqual([]);
    clock.advance(2_000);
    await settle();
    expect(second.order).toEqual(["x", "y", "z"]);
    for (const grant of second.grants) grant.release({});
    expect(limiter.snapshot().limit).toBeGreaterThan(4);
    for (let i = 0; i < 40; i++) {
      const { grants } = queueAll(limiter, ["r"]);
      await settle();
      grants[0]?.release({});
    }
    expect(limiter.snapshot().limit).toBe(8);
  });

  it("adapts an unlimited provider to the concurrency that got a 429", async () => {
    const limiter = new RateLimiter({}, new ManualClock());
    const { grants } = queueAll(limiter, ["a", "b", "c", "d", "e", "f"]);
    await settle();
    expect(grants).toHaveLength(6);
    grants[0]?.release({ rateLimited: {} });
    expect(limiter.snapshot().limit).toBe(3);
  });

  it("lets a call aborted while queued leave the queue with the signal's reason", async () => {
    const limiter = new RateLimiter({ concurrent: 1 }, new ManualClock());
    const held = queueAll(limiter, ["a"]);
    const abort = new AbortController();
    const queued = queueAll(limiter, ["b", "b"], abort.signal);
    const after = queueAll(limiter, ["c"]);
    await settle();
    expect(limiter.snapshot().queued).toBe(3);
    abort.abort(new Error("cancelled"));
    expect(await queued.settled[0]).toEqual(new Error("cancelled"));
    expect(limiter.snapshot().queued).toBe(1);
    held.grants[0]?.release({});
    await settle();
    expect(after.order).toEqual(["c"]);
    expect(queued.order).toEqual([]);
  });

  it("holds requests past requests_per_minute until the oldest leaves the minute", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 2 }, clock);
    const { order, grants } = queueAll(limiter, ["a", "b", "c"]);
    await settle();
    for (const grant of grants) grant.release({});
    expect(order).toEqual(["a", "b"]);
    clock.advance(59_999);
    await settle();
    expect(order).toEqual(["a", "b"]);
    clock.advance(1);
    await settle();
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("holds calls past tokens_per_minute, counting the tokens a call really used", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ tokensPerMinute: 100 }, clock);
    const granted: string[] = [];
    const take = (key: string, tokens: number) =>
      limiter.acquire(key, tokens).then((grant) => {
        granted.push(key);
        return grant;
      });
    const a = await take("a", 60);
    const b = take("b", 60);
    await settle();
    expect(granted).toEqual(["a"]);
    a.release({ tokens: 30 });
    await settle();
    expect(granted).toEqual(["a", "b"]);
    (await b).release({});
    const big = take("c", 500);
    await settle();
    expect(granted).toEqual(["a", "b"]);
    clock.advance(60_000);
    await settle();
    expect(granted).toEqual(["a", "b", "c"]);
    (await big).release({});
  });
});
