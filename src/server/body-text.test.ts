import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstUnstorableString } from "./body-text.js";

describe("strings no store keeps as text", () => {
  it("finds nothing in well-formed text, whatever its shape", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        // fast-check's JSON strings are well formed and hold no NUL unless told to.
        const text = JSON.stringify(value);
        fc.pre(!text.includes("\\u0000"));
        expect(firstUnstorableString(value)).toBeNull();
      }),
    );
  });

  it("names the first field holding a NUL or a lone surrogate, keys included", () => {
    const bad = fc.constantFrom("a\u0000b", "x\ud800", "\udc00y", "\udc00\ud800");
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), bad, fc.boolean(), (value, text, asKey) => {
        const body = asKey
          ? { ok: value, inner: [1, { [text]: true }] }
          : { ok: value, inner: [1, { field: text }] };
        const found = firstUnstorableString(body);
        expect(found?.path).toBe(asKey ? `inner.1.${text}` : "inner.1.field");
      }),
    );
    expect(firstUnstorableString("\ud83d\ude00 a pair is fine")).toBeNull();
  });
});
