import { describe, expect, it } from "vitest";
import { checkOutputSchema, schemaViolations } from "./json-schema.js";

describe("checking a model's reply against an output schema", () => {
  it("runs patterns under RE2: a catastrophic one answers at once", () => {
    const schema = {
      type: "object",
      properties: { answer: { type: "string", pattern: "^(a+)+$" } },
      required: ["answer"],
    };
    expect(checkOutputSchema(schema)).toEqual([]);
    // Backtracking would take days on this reply.
    expect(schemaViolations(schema, { answer: `${"a".repeat(50)}!` })).toEqual([
      { pointer: "/answer", message: 'must match pattern "^(a+)+$"' },
    ]);
  });

  it("takes a schema whose root is the target of a $ref through a property", () => {
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, child: { $ref: "#" } },
    };
    expect(checkOutputSchema(tree)).toEqual([]);
    expect(schemaViolations(tree, { child: { child: { name: 1 } } })).toEqual([
      { pointer: "/child/child/name", message: "must be string" },
    ]);
  });
});
