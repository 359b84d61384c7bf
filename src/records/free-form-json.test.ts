import { describe, expect, it } from "vitest";
import { FREE_FORM_MAX_BYTES, FreeFormObject, freeFormJsonProblem } from "./free-form-json.js";

/** Objects `depth` deep, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe("free-form JSON", () => {
  it("takes values up to 32 deep and refuses 33", () => {
    expect(freeFormJsonProblem(nested(32))).toBeUndefined();
    expect(freeFormJsonProblem(nested(33))).toContain("nested more than 32 levels deep");
    expect(freeFormJsonProblem({ list: [[[[1]]]] })).toBeUndefined();
  });

  it("refuses a value 100,000 deep without exhausting the stack", () => {
    expect(freeFormJsonProblem(nested(100_000))).toContain("nested more than 32 levels");
  });

  it("counts serialized UTF-8 bytes against the size limit", () => {
    const fits = { s: "é".repeat((FREE_FORM_MAX_BYTES - 10) / 2) };
    expect(freeFormJsonProblem(fits)).toBeUndefined();
    expect(freeFormJsonProblem({ s: "é".repeat(FREE_FORM_MAX_BYTES / 2) })).toContain("over");
  });

  it("reports a problem as a zod issue at the field", () => {
    const parsed = FreeFormObject.safeParse(nested(40));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual([]);
  });
});
