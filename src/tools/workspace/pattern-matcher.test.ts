import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fileLines } from "../../memory/file-view.js";
import { type PatternMatcher, startPatternMatcher } from "./pattern-matcher.js";

/** Patterns that mean the same under RE2 and JavaScript, so the expectation can use RegExp. */
const PATTERNS = ["a", "b+c", "^x", "y$", "(?i)Z"];

describe("grepping a file's lines in the pattern thread", () => {
  const started: PatternMatcher[] = [];
  afterAll(async () => {
    for (const matcher of started) await matcher.close();
  });

  it("finds the lines an agent sees (fileLines), numbered as it sees them, with their context", async () => {
    const matchers = new Map<string, PatternMatcher>();
    for (const pattern of PATTERNS) {
      const matcher = await startPatternMatcher(pattern, 2_000, new AbortController().signal);
      if ("reason" in matcher) throw new Error(`${pattern} did not start`);
      matchers.set(pattern, matcher);
      started.push(matcher);
    }
    const piece = fc.constantFrom("a", "bc", "bbc", "x", "y", "Z", " ", "\t", "\n", "\r\n", "\r");
    const content = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(""));
    const settings = fc.record({
      content,
      pattern: fc.constantFrom(...PATTERNS),
      limit: fc.integer({ min: 1, max: 5 }),
      context: fc.integer({ min: 0, max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(settings, async ({ content, pattern, limit, context }) => {
        const lines = fileLines(content);
        const regex = pattern === "(?i)Z" ? /Z/i : new RegExp(pattern);
        const expected = lines
          .flatMap((line, index) => (regex.test(line) ? [index] : []))
          .slice(0, limit)
          .map((index) => {
            const from = Math.max(0, index - context);
            return { index, from, lines: lines.slice(from, index + context + 1) };
          });
        const matcher = matchers.get(pattern) as PatternMatcher;
        expect(await matcher.grepFile(content, limit, context)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
