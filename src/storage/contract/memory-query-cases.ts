import { describe, expect, it } from "vitest";
import { SEARCH_CANDIDATES } from "../bm25.js";
import {
  asc,
  block,
  type ContractContext,
  desc,
  ids,
  passage,
  step,
  userMessage,
} from "./fixtures.js";

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

    it("searches only the agent's own passages and messages, whatever others share", async () => {
      const [a, b] = [await t.createAgent(), await t.createAgent(undefined, "project-2")];
      const same = (prefix: string) =>
        ["p-1", "p-2"].map((id) => ({
          ...passage(`${prefix}${id}`, `tea and biscuits ${id}`, ["food"]),
          created_at_ms: 3_000,
        }));
      await t.store.insertPassages(a, same("a-"));
      await t.store.insertPassages(b, same("b-"));
      const options = { topK: 10, anyTags: ["food"], tags: ["food"], fromMs: 3_000, toMs: 3_000 };
      expect(ids(await t.store.searchPassages(a, "tea biscuits", options)).sort()).toEqual([
        "a-p-1",
        "a-p-2",
      ]);
      expect(ids(await t.store.searchPassages(b, "biscuits", { topK: 10 })).sort()).toEqual([
        "b-p-1",
        "b-p-2",
      ]);
      const [mine] = await t.say(a, "tea at the lighthouse");
      await t.say(b, "tea at the lighthouse", "lighthouse tea");
      expect(ids(await t.store.searchMessages(a, "lighthouse tea", { limit: 10 }))).toEqual([mine]);
      expect(await t.store.searchPassages("agent-missing", "tea", { topK: 10 })).toEqual([]);
    });

    it("counts an agent's own passages, without listing them", async () => {
      const [a, b] = [await t.createAgent(), await t.createAgent()];
      await t.store.insertPassages(a, [passage("a-1", "one"), passage("a-2", "two")]);
      await t.store.insertPassages(b, [passage("b-1", "one")]);
      expect(await t.store.countPassages(a)).toBe(2);
      expect(await t.store.deletePassage(a, "a-1")).toBe(true);
      expect(await t.store.countPassages(a)).toBe(1);
      expect(await t.store.countPassages(b)).toBe(1);
      expect(await t.store.countPassages("agent-missing")).toBe(0);
    });

    it("ranks by how rare a word is among the agent's own rows, not other agents'", async () => {
      // For agent a, "alpha" is the rarer word; other agents make "beta" the rarer overall.
      // The rare word's row comes last, so creation order alone cannot put it first.
      const [a, b] = [await t.createAgent(), await t.createAgent()];
      const texts = ["beta delta", "beta epsilon", "alpha gamma"];
      await t.store.insertPassages(
        a,
        texts.map((text, i) => passage(`a-p-${i}`, text)),
      );
      const many = Array.from({ length: 10 }, (_, i) => `alpha filler ${i}`);
      await t.store.insertPassages(
        b,
        many.map((text, i) => passage(`b-p-${i}`, text)),
      );
      const found = await t.store.searchPassages(a, "beta alpha", { topK: 10 });
      expect(ids(found)).toEqual(["a-p-2", "a-p-0", "a-p-1"]);

      const said = await t.say(a, ...texts);
      await t.say(b, ...many);
      const hits = await t.store.searchMessages(a, "beta alpha", { limit: 10 });
      expect(ids(hits)).toEqual([said[2], said[0], said[1]]);
    });

    it("ranks only the newest matches of a search, a bounded number, after its filters", async () => {
      const a = await t.createAgent();
      const many = SEARCH_CANDIDATES + 5;
      // The oldest row is the best match for "storm"; every later one holds the word too.
      const texts = [
        "storm storm storm",
        ...Array.from({ length: many - 1 }, (_, i) => `a storm and the harbour log number ${i}`),
      ];
      await t.store.insertPassages(
        a,
        texts.map((text, i) => ({ ...passage(`p-${i}`, text), created_at_ms: i })),
      );
      const messages = texts.map((text, i) => userMessage(`m-${i}`, text));
      await t.store.commit(step(a, { messages }));
      expect(ids(await t.store.searchPassages(a, "storm", { topK: 1 }))).not.toEqual(["p-0"]);
      expect(ids(await t.store.searchPassages(a, "storm", { topK: 1, toMs: 0 }))).toEqual(["p-0"]);
      const hits = await t.store.searchMessages(a, "storm", { limit: 1 });
      expect(hits.map((hit) => hit.id)).not.toEqual(["m-0"]);
      const found = await t.store.searchMessages(a, "storm", { limit: many });
      expect(found).toHaveLength(SEARCH_CANDIDATES);
      expect(found.map((hit) => hit.id)).not.toContain("m-0");
      expect(found.map((hit) => hit.id)).toContain(`m-${many - 1}`);
    });

    it("finds a block by its id within a project only", async () => {
      const a = await t.createAgent(undefined, "project-1");
      const b = await t.createAgent(undefined, "project-2");
      const mine = { ...block("notes"), id: "block-mine" };
      const theirs = { ...block("notes"), id: "block-theirs" };
      await t.store.putBlock(a, mine);
      await t.store.putBlock(b, theirs);
      expect(await t.store.blocks.get("project-1", mine.id)).toEqual(mine);
      expect(await t.store.blocks.agentsOf("project-1", mine.id)).toEqual([a]);
      expect(await t.store.blocks.get("project-1", theirs.id)).toBeNull();
      expect(await t.store.blocks.agentsOf("project-1", theirs.id)).toEqual([]);
      expect(await t.store.blocks.get("project-1", "block-nope")).toBeNull();
    });
  });
}
