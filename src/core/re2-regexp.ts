import { createRequire } from "node:module";
import type { RE2JS } from "re2js";

/** A pattern may be long, but not a program in itself: RE2 compiles it into states per char. */
export const MAX_PATTERN_CHARS = 1000;

const require = createRequire(import.meta.url);

/** What Ajv needs of a regular expression (its `code.regExp` option). */
export interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}

/**
 * A JSON Schema `pattern` under RE2 (re2js, loaded at the first pattern), whose time is linear
 * in the text: a pattern such as `^(a+)+$` under JavaScript's backtracking engine would hold
 * the event loop, and every agent with it, for hours. A pattern RE2 does not take (a
 * back-reference, a look-around) or one over {@link MAX_PATTERN_CHARS} throws. Shaped as Ajv's
 * `code.regExp` engine: Ajv keeps one compiled pattern per `toString()`, so each says its own.
 */
export const re2RegExp = Object.assign(
  (pattern: string): RegExpLike => {
    if (pattern.length > MAX_PATTERN_CHARS) {
      throw new Error(`a pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    }
    const { RE2JS: engine } = require("re2js") as { RE2JS: typeof RE2JS };
    const compiled = engine.compile(pattern);
    return {
      test: (text: string) => compiled.matcher(text).find(),
      toString: () => `/${pattern}/`,
    };
  },
  { code: "re2js" },
);
