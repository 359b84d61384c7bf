import { describe, expect, it } from "vitest";
import { reciprocalRankFusion } from "./fusion.js";

const fuse = (rankings: string[][], limit = 10) => reciprocalRankFusion(rankings, (x) => x, limit);

describe("reciprocal rank fusion", () => {
  it("puts an item both rankings found above items only one found", () => {
    expect(
      fuse([
        ["a", "b", "c"],
        ["d", "c", "e"],
      ]),
    ).toEqual(["c", "a", "d", "b", "e"]);
  });

  it("breaks ties by first appearance, full-text's ranking first", () => {
    expect(fuse([["a"], ["b"]])).toEqual(["a", "b"]);
    expect(fuse([["b"], ["a"]])).toEqual(["b", "a"]);
  });

  it("keeps one ranking's order when the other is empty, and honours the limit", () => {
    expect(fuse([["x", "y", "z"], []], 2)).toEqual(["x", "y"]);
    expect(fuse([[], ["z", "y"]])).toEqual(["z", "y"]);
    expect(fuse([["a"], ["a"]], 0)).toEqual([]);
  });

  it("counts an item repeated in one ranking once, at its best rank", () => {
    expect(fuse([["a", "a", "b"], ["b"]])).toEqual(["b", "a"]);
  });
});
