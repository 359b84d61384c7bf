import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeBeyondLatin1 } from "../scripts/latin1-source.mjs";

/**
 * The bundle's chunks are written in Latin-1 only (scripts/latin1-source.mjs), so V8 keeps
 * them one byte a character: the escaped code must mean exactly what it meant.
 */
const evaluate = (code: string): unknown => new Function(code)();

describe("escaping characters beyond Latin-1 in the bundle", () => {
  it("keeps what string, template and regex literals mean", () => {
    const code = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: this is source code with a template
      'const arrow = "a → b", astral = "face 😀", tpl = `${arrow} … ✓`;',
      'const re = /[→←]/, astralRe = /^😀$/u, latin = "café ±";',
      "return { arrow, astral, tpl, re: re.test('←'), astralRe: astralRe.test('😀'), latin };",
    ].join("\n");
    const escaped = escapeBeyondLatin1(code);
    expect(/[\u0100-\uffff]/.test(escaped)).toBe(false);
    expect(escaped).toContain("café ±");
    expect(evaluate(escaped)).toEqual(evaluate(code));
  });

  it("keeps any string literal's value (fast-check)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const code = `return ${JSON.stringify(text)};`;
        expect(evaluate(escapeBeyondLatin1(code))).toBe(text);
      }),
    );
  });

  it("leaves the built bundle with no character beyond Latin-1", () => {
    const dir = fileURLToPath(new URL("../dist/bundle/", import.meta.url));
    const chunks = readdirSync(dir).filter((name) => name.endsWith(".mjs"));
    expect(chunks.length).toBeGreaterThan(10);
    const wide = chunks.filter((name) => /[\u0100-\uffff]/.test(readFileSync(dir + name, "utf8")));
    expect(wide).toEqual([]);
  });
});
