import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "./body-depth.js";

describe("nestsDeeperThan", () => {
  it("counts arrays and objects inside one another, up to and past the limit", () => {
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(nestsDeeperThan("[[],[],[]]", 2)).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[["\\' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(['"', "[[["]), 1)).toBe(false);
  });

  it("scans a million brackets without recursing", () => {
    expect(nestsDeeperThan("[".repeat(1_000_000), 64)).toBe(true);
  });
});
