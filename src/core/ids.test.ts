import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { timeOrderedIds } from "./ids.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("timeOrderedIds", () => {
  it("makes Letta-shaped ids whose UUID is a version 7 with RFC 9562's variant", () => {
    const id = timeOrderedIds(() => 1_795_000_000_000).next("message");
    expect(id).toMatch(/^message-/);
    expect(id.slice("message-".length)).toMatch(UUID_V7);
    expect(id.slice("message-".length, "message-".length + 13).replace("-", "")).toBe(
      (1_795_000_000_000).toString(16).padStart(12, "0"),
    );
  });

  it("makes ids that sort in the order they were made, whatever the clock does", () => {
    fc.assert(
      fc.property(
        // Clock readings: runs of the same millisecond, jumps forward and steps back.
        fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: 1, max: 5000 })), {
          minLength: 1,
          maxLength: 20,
        }),
        (moves) => {
          let clock = 1_795_000_000_000;
          const readings = moves.flatMap(([step, repeat]) => {
            clock += step;
            return Array.from({ length: repeat }, () => clock);
          });
          let next = 0;
          const ids = timeOrderedIds(() => readings[next++] ?? clock);
          const made = readings.map(() => ids.next("step").slice("step-".length));
          for (const id of made) expect(id).toMatch(UUID_V7);
          expect(made).toEqual([...made].sort());
          expect(new Set(made).size).toBe(made.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("draws every id's 62 random bits afresh, across refills of its block of randomness", () => {
    const ids = timeOrderedIds(() => 1_795_000_000_000);
    // 8 bytes an id, 4,096 a block: 2,000 ids read the OS's generator four times.
    const tails = Array.from({ length: 2000 }, () => ids.next("run").slice(-16));
    expect(new Set(tails).size).toBe(tails.length);
    const digits = new Set(tails.flatMap((tail) => [...tail.slice(5)]));
    expect(digits.size).toBe(16);
  });
});
