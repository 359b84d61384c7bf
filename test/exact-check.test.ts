import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { benchRuntime } from "../src/cli/bench/bench-setup.js";
import { COMPILE_AFTER, isExactly, objectCheckForms } from "../src/core/exact-check.js";
import { RunRecord } from "../src/records/agent-record.js";
import { AgentMessage } from "../src/records/messages.js";
import { JournalEntry } from "../src/records/run-journal.js";
import { SessionState } from "../src/records/session-state.js";
import { StepRecord } from "../src/records/step-record.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import type { StepCommit } from "../src/storage/turn-store.js";

/**
 * `isExactly` lets the store skip zod's copy of a record that already is what zod's parse
 * would return (core/exact-check.ts). It must never accept a value zod would reject or change.
 */

/** What a few of the bench's turns commit: real states, messages, journal entries, steps. */
async function committedSteps(): Promise<StepCommit[]> {
  const store = createInMemoryStore();
  const steps: StepCommit[] = [];
  const commit = store.commit.bind(store);
  store.commit = async (step: StepCommit) => {
    steps.push(structuredClone(step));
    return commit(step);
  };
  const { runtime, createAgents } = benchRuntime(store);
  const [agent = ""] = await createAgents(1);
  for (const content of ["one", "two", "three"]) await runtime.send(agent, { content });
  await runtime.shutdown();
  return steps;
}

type Sample = { schema: z.ZodType; value: unknown };

function samplesOf(steps: StepCommit[]): Sample[] {
  return steps.flatMap((step) => [
    { schema: SessionState, value: step.state },
    ...step.messages.map((value) => ({ schema: AgentMessage, value })),
    ...(step.journal ?? []).map((value) => ({ schema: JournalEntry, value })),
    ...(step.steps ?? []).map((value) => ({ schema: StepRecord, value })),
    ...(step.run ? [{ schema: RunRecord, value: step.run }] : []),
  ]);
}

/** Where a value has objects and arrays, as paths from its root. */
function containers(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== "object" || value === null) return [];
  const here = [path];
  const children = Object.entries(value).flatMap(([key, child]) =>
    containers(child, [...path, Array.isArray(value) ? Number(key) : key]),
  );
  return [...here, ...children];
}

function at(root: unknown, path: (string | number)[]): Record<string | number, unknown> {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown>)[key],
    root,
  ) as Record<string | number, unknown>;
}

const oddValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1.5,
    -1,
    2 ** 53,
    "",
    [],
    {},
  ),
);

const forms = new Map<z.ZodType, ReturnType<typeof objectCheckForms>>();

/**
 * `isExactly`, and for an object schema the same answer from both forms of its check (the
 * interpreted one of its first checks and the compiled one after).
 */
function judged(schema: z.ZodType, value: unknown): boolean {
  const verdict = isExactly(schema, value);
  if (!forms.has(schema)) forms.set(schema, objectCheckForms(schema));
  const both = forms.get(schema);
  if (both) {
    expect(both.interpreted(value)).toBe(verdict);
    expect(both.compiled(value)).toBe(verdict);
  }
  return verdict;
}

describe("isExactly", () => {
  it("accepts what the engine commits, and zod's parse of it is the same value", async () => {
    const samples = samplesOf(await committedSteps());
    expect(samples.length).toBeGreaterThan(20);
    for (const { schema, value } of samples) {
      expect(judged(schema, value)).toBe(true);
      expect(schema.parse(value)).toStrictEqual(value);
    }
  });

  it("never accepts a value zod would reject or change, however the value is altered", async () => {
    const samples = samplesOf(await committedSteps());
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: samples.length - 1 }),
        fc.nat(),
        fc.constantFrom("set", "delete", "add"),
        fc.string({ maxLength: 12 }),
        oddValue,
        (pick, where, how, key, odd) => {
          const { schema, value } = samples[pick] as Sample;
          const altered = structuredClone(value);
          const places = containers(altered);
          const path = places[where % places.length] ?? [];
          const node = at(altered, path);
          const keys = Object.keys(node);
          const target = keys.length > 0 ? (keys[where % keys.length] as string) : key;
          try {
            if (how === "delete") delete node[target];
            else if (how === "add") node[key] = odd;
            else node[target] = odd;
          } catch {
            return; // an array's length set to a non-length: no such value can be sent
          }
          if (judged(schema, altered)) {
            const parsed = schema.safeParse(altered);
            expect(parsed.success).toBe(true);
            expect(parsed.data).toStrictEqual(altered);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("leaves to zod what it cannot be sure of: defaults, stripped keys, refinements, formats", () => {
    const base = z.object({
      a: z.string(),
      b: z.int().min(0).optional(),
      c: z.string().default("x"),
    });
    expect(judged(base, { a: "1", c: "y" })).toBe(true);
    expect(judged(base, { a: "1", b: 2, c: "y" })).toBe(true);
    expect(judged(base, { a: "1" })).toBe(false); // c's default would be filled in
    expect(judged(base, { a: "1", b: undefined, c: "y" })).toBe(false);
    expect(judged(base, { a: "1", c: "y", extra: 1 })).toBe(false); // zod strips it
    expect(judged(base, { a: "1", b: 1.5, c: "y" })).toBe(false);
    expect(judged(base, { a: "1", b: -1, c: "y" })).toBe(false);
    expect(judged(z.number(), Number.POSITIVE_INFINITY)).toBe(false);
    expect(judged(z.number(), Number.NaN)).toBe(false);
    expect(judged(z.string().regex(/^a+$/g), "aaa")).toBe(true);
    expect(judged(z.string().regex(/^a+$/g), "aaa")).toBe(true); // a global regex keeps no state
    expect(judged(z.email(), "a@b.co")).toBe(false);
    expect(
      judged(
        z.object({ a: z.string() }).refine(() => true),
        { a: "x" },
      ),
    ).toBe(false);
    expect(
      judged(
        z.unknown().refine(() => false),
        1,
      ),
    ).toBe(false);
    expect(
      judged(
        z.enum(["a"]).refine(() => false),
        "a",
      ),
    ).toBe(false);
    expect(
      judged(
        z
          .string()
          .nullable()
          .refine(() => false),
        null,
      ),
    ).toBe(false);
    expect(judged(z.strictObject({ a: z.string() }), { a: "x" })).toBe(false);
    expect(
      judged(
        z.string().transform((s) => s.length),
        "x",
      ),
    ).toBe(false);
    expect(
      judged(
        z.object({ a: z.string() }),
        new (class {
          a = "x";
        })(),
      ),
    ).toBe(false);
  });

  it("picks a discriminated union's option by its tag, and unions of objects go to zod", () => {
    const tagged = z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("a"), n: z.int() }),
      z.object({ kind: z.literal("b"), s: z.string() }),
    ]);
    expect(judged(tagged, { kind: "a", n: 1 })).toBe(true);
    expect(judged(tagged, { kind: "b", n: 1 })).toBe(false);
    expect(judged(tagged, { kind: "c" })).toBe(false);
    const plain = z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.int() })]);
    expect(judged(plain, { a: "x", b: 1 })).toBe(false);
    expect(judged(z.union([z.literal("x"), z.int()]), 3)).toBe(true);
    // zod's first option that parses trims "x " to "x": the value would change.
    expect(judged(z.union([z.string().trim(), z.literal("x ")]), "x ")).toBe(false);
    expect(judged(z.record(z.string(), z.int()), JSON.parse('{"__proto__": 1}'))).toBe(false);
    // A tag from an enum, and a tag that only the prototype has.
    const byEnum = z.discriminatedUnion("kind", [
      z.object({ kind: z.enum(["a", "b"]), n: z.int() }),
      z.object({ kind: z.literal("c") }),
    ]);
    expect(judged(byEnum, { kind: "b", n: 1 })).toBe(true);
    expect(judged(byEnum, { kind: "c" })).toBe(true);
    expect(judged(byEnum, Object.create({ kind: "c" }))).toBe(false);
  });

  it("keeps the interpreted check where code cannot be made from strings", () => {
    const schema = z.object({ a: z.string(), b: z.int().optional() });
    vi.stubGlobal("Function", () => {
      throw new EvalError("Code generation from strings disallowed for this context");
    });
    try {
      expect(objectCheckForms(schema)).toBeNull();
      for (let i = 0; i <= COMPILE_AFTER; i++) {
        expect(isExactly(schema, { a: "x" })).toBe(true);
        expect(isExactly(schema, { a: "x", c: 1 })).toBe(false);
      }
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("takes a key only as its own: names on Object's prototype, hidden keys, extra keys", () => {
    const named = z.object({ a: z.string(), toString: z.unknown().optional() });
    // `v.toString` is Object's: zod's output would have a `toString` key; the value has none.
    expect(named.parse({ a: "x" })).toHaveProperty("toString", Object.prototype.toString);
    expect(judged(named, { a: "x" })).toBe(false);
    expect(judged(named, { a: "x", zzz: 1 })).toBe(false);
    expect(judged(named, { a: "x", toString: 1 })).toBe(true);
    expect(named.parse({ a: "x", toString: 1 })).toEqual({ a: "x", toString: 1 });
    // Own but not enumerable: zod's copy would make it an ordinary key.
    const hidden = Object.defineProperty({ b: 1 }, "a", { value: "x", enumerable: false });
    expect(judged(z.object({ a: z.string(), b: z.int() }), hidden)).toBe(false);
    expect(objectCheckForms(z.object({}))).not.toBeNull();
    expect(judged(z.object({}), {})).toBe(true);
    expect(judged(z.object({}), { a: 1 })).toBe(false);
    // As many keys as fields, one of them unknown.
    expect(judged(z.object({ a: z.string(), b: z.int().optional() }), { a: "x", c: 1 })).toBe(
      false,
    );
    // A field named `__proto__` would be read from the prototype: zod judges it.
    expect(judged(z.object({ ["__proto__"]: z.unknown() }), JSON.parse('{"__proto__":1}'))).toBe(
      false,
    );
  });
});
