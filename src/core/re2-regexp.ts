import { createRequire } from "node:module";
import type { RE2JS } from "re2js";

/** A pattern may be long, but not a program in itself: RE2 compiles it into states per char. */
export const MAX_PATTERN_CHARS = 1000;

const require = createRequire(import.meta.url);

/**
 * The most work one match may take, as RE2 instructions times characters: RE2 is linear, but
 * a pattern of many instructions on a long string still takes its time (here ~40 ns a unit:
 * 200 instructions on 16,000 characters, 128 ms). At this budget a match takes ~50 ms at most.
 */
export const MAX_MATCH_WORK = 1_250_000;

/** A string too long to be matched against its pattern within {@link MAX_MATCH_WORK}. */
export class PatternWorkError extends Error {
  override readonly name = "PatternWorkError";
}

/** What Ajv needs of a regular expression (its `code.regExp` option). */
export interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}

/**
 * A JSON Schema `pattern` under RE2 (re2js, loaded at the first pattern), whose time is linear
 * in the text: a pattern such as `^(a+)+$` under JavaScript's backtracking engine would hold
 * the event loop, and every agent with it, for hours. A pattern RE2 does not take (a
 * back-reference, a look-around) or one over {@link MAX_PATTERN_CHARS} throws; so does a test
 * of a text too long for the pattern ({@link PatternWorkError}), since it runs on the event
 * loop. Shaped as Ajv's `code.regExp` engine: Ajv keeps one compiled pattern per `toString()`,
 * so each says its own.
 */
export const re2RegExp = Object.assign(
  (pattern: string): RegExpLike => {
    if (pattern.length > MAX_PATTERN_CHARS) {
      throw new Error(`a pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    }
    const { RE2JS: engine } = require("re2js") as { RE2JS: typeof RE2JS };
    const compiled = engine.compile(pattern);
    const size = compiled.programSize();
    return {
      test: (text: string) => {
        if (size * text.length > MAX_MATCH_WORK) {
          const most = Math.floor(MAX_MATCH_WORK / size);
          throw new PatternWorkError(
            `a string of ${text.length} characters is too long to check against the pattern /${pattern}/ (at most ${most} for it)`,
          );
        }
        return compiled.matcher(text).find();
      },
      toString: () => `/${pattern}/`,
    };
  },
  { code: "re2js" },
);
