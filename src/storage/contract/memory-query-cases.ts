import { describe, expect, it } from "vitest";
import { asc, block, type ContractContext, desc, ids, passage } from "./fixtures.js";

/** Memory reads the API filters: done by the store, not by reading everything back. */
export function memoryQueryCases(t: ContractContext): void {
  describe("memory queries", () => {
    it("lists the passages holding every word, in any case, paged by cursors", async () => {
      const a = await t.createAgent();
      await t.store.insertPassages(a, [
        passage("p-1", "The Disk is full"),
        passage("p-2", "the network is slow"),
        passage("p-3", "disk latency and FULL queues"),
        passage("p-4", "nothing here"),
      ]);
      const words = (...containing: string[]) => ({ containing });
      expect(ids(await t.store.listPassages(a, asc(), words("disk", "full")))).toEqual([
        "p-1",
        "p-3",
      ]);
      expect(ids(await t.store.listPassages(a, desc(1), words("DISK")))).toEqual(["p-3"]);
      expect(ids(await t.store.listPassages(a, asc(5, { after: "p-1" }), words("is")))).toEqual([
        "p-2",
        "p-3",
      ]);
      expect(ids(await t.store.listPassages(a, asc(), words()))).toEqual([
        "p-1",
        "p-2",
        "p-3",
        "p-4",
      ]);
      expect(await t.store.listPassages(a, asc(), words("absent"))).toEqual([]);
      // A word is text, not a pattern.
      expect(await t.store.listPassages(a, asc(), words("%"))).toEqual([]);
    });

    it("searches with any-of tags and a creation time range, both ends included", async () => {
      const a = await t.createAgent();
      const at = (id: string, ms: number, tags: string[]) => ({
        ...passage(id, `tea ${id}`, tags),
        created_at_ms: ms,
      });
      await t.store.insertPassages(a, [
        at("p-1", 1_000, ["food"]),
        at("p-2", 2_000, ["drink", "hot"]),
        at("p-3", 3_000, ["drink"]),
        at("p-4", 4_000, []),
      ]);
      const found = async (options: Record<string, unknown>) =>
        ids(await t.store.searchPassages(a, "tea", { topK: 10, ...options })).sort();
      expect(await found({ anyTags: ["hot", "food"] })).toEqual(["p-1", "p-2"]);
      expect(await found({ tags: ["drink", "hot"] })).toEqual(["p-2"]);
      expect(await found({ fromMs: 2_000, toMs: 3_000 })).toEqual(["p-2", "p-3"]);
      expect(await found({ anyTags: ["drink"], fromMs: 2_500 })).toEqual(["p-3"]);
      expect(await found({ anyTags: [] })).toEqual([]);
      expect(await found({ topK: 1, fromMs: 4_000 })).toEqual(["p-4"]);
    });

    it("finds a block by its id within a project only", async () => {
      const a = await t.createAgent(undefined, "project-1");
      const b = await t.createAgent(undefined, "project-2");
      const mine = { ...block("notes"), id: "block-mine" };
      const theirs = { ...block("notes"), id: "block-theirs" };
      await t.store.putBlock(a, mine);
      await t.store.putBlock(b, theirs);
      expect(await t.store.findBlock("project-1", mine.id)).toEqual({ agentId: a, block: mine });
      expect(await t.store.findBlock("project-1", theirs.id)).toBeNull();
      expect(await t.store.findBlock("project-1", "block-nope")).toBeNull();
    });
  });
}
