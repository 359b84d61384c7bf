import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseOnce, safeParseOnce, safeParseTiered } from "./tiered-parse.js";

const Call = z.object({
  name: z.string().min(1),
  status: z.enum(["pending", "done"]).default("pending"),
  count: z.int().min(0),
  note: z.string().nullable().optional(),
  tags: z.array(z.object({ key: z.string(), value: z.union([z.string(), z.number()]) })),
});

const nearlyCalls = fc.record(
  {
    name: fc.oneof(fc.string(), fc.integer()),
    status: fc.constantFrom("pending", "done", "other"),
    count: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double()),
    note: fc.option(fc.string()),
    tags: fc.array(fc.record({ key: fc.string(), value: fc.oneof(fc.string(), fc.boolean()) })),
    extra: fc.string(),
  },
  { requiredKeys: [] },
);

describe("tiered parsing", () => {
  it("gives what zod's own parse gives, before and after it switches to the compiled parser", () => {
    // Each property run parses a fresh schema 40 times, so both tiers see every input.
    fc.assert(
      fc.property(fc.array(nearlyCalls, { minLength: 40, maxLength: 40 }), (inputs) => {
        const schema = Call.extend({});
        for (const input of inputs) {
          const tiered = safeParseTiered(schema, input);
          const own = schema.safeParse(input);
          expect(tiered.success).toBe(own.success);
          expect(tiered.data).toEqual(own.data);
          expect(tiered.error?.issues).toEqual(own.error?.issues);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("parses once as zod does, throwing zod's error for bad input", () => {
    const good = { name: "lookup", count: 1, tags: [] };
    expect(parseOnce(Call, good)).toEqual(Call.parse(good));
    expect(safeParseOnce(Call, { name: "" }).error?.issues).toEqual(
      Call.safeParse({ name: "" }).error?.issues,
    );
    expect(() => parseOnce(Call, { name: 3 })).toThrow(z.ZodError);
  });
});
