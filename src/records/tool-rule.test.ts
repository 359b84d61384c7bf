import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ToolRule, uniqueToolRules } from "./tool-rule.js";

const rule = fc.oneof(
  fc.record({
    type: fc.constantFrom("run_first", "exit_loop", "continue_loop", "requires_approval"),
    tool_name: fc.constantFrom("a", "b", "send_message"),
  }),
  fc.record({
    type: fc.constant("max_count_per_step"),
    tool_name: fc.constantFrom("a", "b"),
    max_count_limit: fc.integer({ min: 1, max: 3 }),
  }),
) as fc.Arbitrary<ToolRule>;

/** The same rule with its fields in reverse order, as a client may send them. */
const reordered = (r: ToolRule) => Object.fromEntries(Object.entries(r).reverse()) as ToolRule;

describe("uniqueToolRules", () => {
  it("drops exact repeats whatever their fields' order, keeping the first of each in order", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 12 }), (rules) => {
        const sent = rules.flatMap((r, i) => (i % 2 === 0 ? [r] : [r, reordered(r)]));
        const kept = uniqueToolRules(sent);
        const canonical = (r: ToolRule) => JSON.stringify(r, Object.keys(r).sort());
        const firsts = rules.filter(
          (r, i) => rules.findIndex((o) => canonical(o) === canonical(r)) === i,
        );
        expect(kept.map(canonical)).toEqual(firsts.map(canonical));
      }),
    );
  });
});
