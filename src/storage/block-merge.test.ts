import { describe, expect, it } from "vitest";
import { ConflictError } from "../core/errors.js";
import { mergeBlockWrite, rebase } from "./block-merge.js";

const block = (value: string, limit = 100) => ({
  id: "block-1",
  label: "team",
  description: "",
  value,
  limit,
  read_only: false,
});

describe("rebasing a turn's block edit on a change made meanwhile", () => {
  it("appends after the other agent's append", () => {
    expect(rebase("notes", "notes\nmine", "notes\ntheirs")).toBe("notes\ntheirs\nmine");
  });

  it("prepends before the other's change", () => {
    expect(rebase("b", "a b", "b c")).toBe("a b c");
  });

  it("replaces the same text where it now stands", () => {
    expect(rebase("x: 1\ny: 2", "x: 1\ny: 3", "w: 0\nx: 1\ny: 2")).toBe("w: 0\nx: 1\ny: 3");
  });

  it("gives up when the replaced text is gone or appears twice", () => {
    expect(rebase("x: 1\ny: 2", "x: 1\ny: 3", "x: 1\ny: 9")).toBeNull();
    expect(rebase("ab", "aXb", "ab ab")).toBeNull();
  });

  it("writes the edit as made when nothing changed meanwhile, keeping the stored fields", () => {
    const stored = { ...block("one"), description: "renamed meanwhile" };
    expect(mergeBlockWrite(stored, block("two"), "one")).toEqual({ ...stored, value: "two" });
    expect(mergeBlockWrite(block("three"), block("one"), "one")).toEqual(block("three"));
  });

  it("refuses a merge that overlaps or breaks the limit, naming the block", () => {
    expect(() => mergeBlockWrite(block("x: 9"), block("x: 2"), "x: 1")).toThrow(ConflictError);
    expect(() => mergeBlockWrite(block("aaaa", 6), block("bbbbb"), "b")).toThrow(/limit of 6/);
  });
});
