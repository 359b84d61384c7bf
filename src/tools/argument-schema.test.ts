import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { argumentCheck } from "./argument-schema.js";

const usable = (schema: Record<string, unknown>) => {
  const checked = argumentCheck(schema);
  if (!checked.ok) throw new Error(checked.error);
  return checked.check;
};

describe("argument checks from a tool's JSON Schema", () => {
  it("takes a schema that recurses through a property, and checks the value's depth", () => {
    const check = usable({
      type: "object",
      properties: { name: { type: "string" }, child: { $ref: "#" } },
    });
    expect(check({ name: "a", child: { name: "b", child: {} } })).toEqual([]);
    expect(check({ child: { child: { name: 3 } } })).toEqual([
      { path: ["child", "child", "name"], message: "must be string" },
    ]);
  });
});

describe("schemas that would stall or crash the server", () => {
  it("refuses a $ref that leads back to where it stands, naming where", () => {
    expect(argumentCheck({ type: "object", $ref: "#" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("'#'"),
    });
    const twoStep = {
      type: "object",
      $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } },
      properties: { command: { $ref: "#/$defs/a" } },
    };
    expect(argumentCheck(twoStep)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/refers back to itself/),
    });
  });

  it("reports a value too deep for a recursive schema as a problem, not a crash", () => {
    const check = usable({ type: "object", properties: { child: { $ref: "#" } } });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    expect(check(deep)).toEqual([
      { path: [], message: "the arguments nest too deeply to be checked" },
    ]);
  });

  it("runs patterns under RE2: a catastrophic one answers at once, a back-reference is refused", () => {
    const check = usable({
      type: "object",
      properties: { command: { type: "string", pattern: "^(a+)+$" } },
      patternProperties: { "^(x+x+)+y$": { type: "number" } },
    });
    // JavaScript's backtracking engine would take days on each of these.
    expect(check({ command: `${"a".repeat(50)}!` })).toEqual([
      { path: ["command"], message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(check({ command: "aaa", [`${"x".repeat(50)}y`]: "not a number" })).toHaveLength(1);
    expect(check({ command: "aaa" })).toEqual([]);
    expect(
      argumentCheck({ type: "object", properties: { a: { pattern: "(a)\\1" } } }),
    ).toMatchObject({
      ok: false,
    });
    expect(
      argumentCheck({ type: "object", properties: { a: { pattern: "a".repeat(1001) } } }),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining("longer than 1000"),
    });
  });

  it("bounds a pattern's work on the event loop: a string too long for it is a problem, not a stall", () => {
    const check = usable({
      type: "object",
      properties: { text: { type: "string", pattern: "(.*.*.*a){22}x" } },
    });
    // 201 RE2 instructions: fine on a short string, refused past ~6,000 characters.
    expect(check({ text: `${"a".repeat(30)}x` })).toEqual([]);
    expect(check({ text: `${"a".repeat(15_999)}x` })).toEqual([
      { path: [], message: expect.stringContaining("is too long to check against the pattern") },
    ]);
    // A small pattern checks long strings.
    const simple = usable({
      type: "object",
      properties: { t: { type: "string", pattern: "^a+$" } },
    });
    expect(simple({ t: "a".repeat(100_000) })).toEqual([]);
  });

  it("refuses a schema nested past any tool's need", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 70; i++) schema = { type: "object", properties: { a: schema } };
    expect(argumentCheck(schema)).toEqual({ ok: false, error: "the schema nests too deeply" });
  });

  it("never throws, for any schema built from references and combinators, on any value", () => {
    const pointer = fc.constantFrom("#", "#/$defs/a", "#/$defs/b", "#/properties/p", "#/nowhere");
    const leaf = fc.oneof(
      fc.constantFrom({ type: "string" }, { type: "number" }, {}, { pattern: "^(a|aa)+$" }),
      pointer.map(($ref) => ({ $ref })),
    );
    const node = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.record({ allOf: fc.array(tie("schema"), { maxLength: 2 }) }),
        fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
        fc.record({ not: tie("schema") }),
        fc.record({ type: fc.constant("object"), properties: fc.record({ p: tie("schema") }) }),
        fc.record({ type: fc.constant("array"), items: tie("schema") }),
      ),
    })).schema;
    const root = fc.record({
      type: fc.constant("object"),
      properties: fc.record({ p: node }),
      $defs: fc.record({ a: node, b: node }),
    });
    fc.assert(
      fc.property(root, fc.jsonValue({ maxDepth: 6 }), (schema, value) => {
        const checked = argumentCheck(schema as Record<string, unknown>);
        if (checked.ok) expect(Array.isArray(checked.check(value))).toBe(true);
        else expect(checked.error).not.toBe("");
      }),
      { numRuns: 300 },
    );
  });
});
