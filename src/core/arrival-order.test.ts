import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ArrivalOrder } from "./arrival-order.js";

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("arrival order", () => {
  it("hands work over in arrival order, whatever order its preparations finish in", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.constantFrom("a", "b"), delay: fc.nat(5), fails: fc.boolean() }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        async (arrivals) => {
          const order = new ArrivalOrder();
          const handedOver: number[] = [];
          const runs = arrivals.map(({ key, delay, fails }, i) =>
            order
              .run(
                key,
                async () => {
                  for (let tick = 0; tick < delay; tick += 1) await settle();
                  if (fails) throw new Error(`prepare ${i} failed`);
                  return i;
                },
                async (prepared) => {
                  handedOver.push(prepared);
                  return prepared * 10;
                },
              )
              .then(
                (value) => ({ ok: true as const, value }),
                () => ({ ok: false as const }),
              ),
          );
          const results = await Promise.all(runs);
          const expected = arrivals.flatMap((a, i) => (a.fails ? [] : [i]));
          // Within a key, hand-overs keep arrival order; failed preparations never block.
          for (const key of ["a", "b"]) {
            const ofKey = (i: number) => arrivals[i]?.key === key;
            expect(handedOver.filter(ofKey)).toEqual(expected.filter(ofKey));
          }
          results.forEach((result, i) => {
            expect(result).toEqual(
              arrivals[i]?.fails ? { ok: false } : { ok: true, value: i * 10 },
            );
          });
          await settle();
          expect(order.pendingKeys).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("does not wait for earlier work to finish, only to be handed over", async () => {
    const order = new ArrivalOrder();
    let releaseFirst: () => void = () => {};
    const started: string[] = [];
    const first = order.run(
      "agent",
      async () => "first",
      (name) => {
        started.push(name);
        return new Promise<string>((resolve) => {
          releaseFirst = () => resolve(name);
        });
      },
    );
    const second = order.run(
      "agent",
      async () => "second",
      async (name) => {
        started.push(name);
        return name;
      },
    );
    expect(await second).toBe("second");
    expect(started).toEqual(["first", "second"]);
    releaseFirst();
    expect(await first).toBe("first");
  });
});
