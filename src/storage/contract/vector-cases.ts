import { describe, expect, it } from "vitest";
import type { StoreContractOptions } from "./fixtures.js";
import {
  assistantMessage,
  type ContractContext,
  ids,
  passage,
  reasoningMessage,
  step,
  userMessage,
} from "./fixtures.js";

const MODEL = "openai/text-embedding-3-small";
const OTHER = "ollama/nomic-embed-text";
const v = (...values: number[]) => Float32Array.from(values);

/** Vectors for hybrid search: written after their rows, searched exactly, deleted with them. */
export function vectorCases(t: ContractContext, options: StoreContractOptions): void {
  describe("vectors", () => {
    it("lists rows without a vector of the model in insertion order, from a position on", async () => {
      const a = await t.createAgent();
      await t.store.insertPassages(a, [passage("p-1", "one"), passage("p-2", "two")]);
      await t.store.insertPassages(a, [passage("p-3", "three")]);
      const first = await t.store.vectors.unembedded(a, "passage", MODEL, 0, 2);
      expect(first.map((row) => [row.id, row.text])).toEqual([
        ["p-1", "one"],
        ["p-2", "two"],
      ]);
      const rest = await t.store.vectors.unembedded(
        a,
        "passage",
        MODEL,
        first[1]?.position ?? 0,
        2,
      );
      expect(ids(rest)).toEqual(["p-3"]);
      expect(
        await t.store.vectors.putVectors(a, "passage", MODEL, [{ id: "p-2", vector: v(1, 0) }]),
      ).toBe(1);
      expect(ids(await t.store.vectors.unembedded(a, "passage", MODEL, 0, 10))).toEqual([
        "p-1",
        "p-3",
      ]);
      // A vector of another model does not count: changing models re-embeds everything.
      expect(ids(await t.store.vectors.unembedded(a, "passage", OTHER, 0, 10))).toEqual([
        "p-1",
        "p-2",
        "p-3",
      ]);
    });

    it("lists only messages conversation search can find", async () => {
      const a = await t.createAgent();
      const messages = [
        userMessage("m-1", "hello there"),
        reasoningMessage("m-2", "thinking"),
        assistantMessage("m-3", "hi"),
      ];
      await t.store.commit(step(a, { messages }));
      const rows = await t.store.vectors.unembedded(a, "message", MODEL, 0, 10);
      expect(rows.map((row) => [row.id, row.text])).toEqual([
        ["m-1", "hello there"],
        ["m-3", "hi"],
      ]);
      expect(await t.store.vectors.counts(a, MODEL)).toEqual({ embedded: 0, total: 2 });
      await t.store.vectors.putVectors(a, "message", MODEL, [
        { id: "m-1", vector: v(0, 1) },
        { id: "m-2", vector: v(1, 0) },
        { id: "m-3", vector: v(1, 0) },
      ]);
      expect(await t.store.vectors.counts(a, MODEL)).toEqual({ embedded: 2, total: 2 });
      const near = await t.store.vectors.nearestMessages(a, MODEL, v(0.1, 1), { limit: 5 });
      expect(near.map((hit) => [hit.id, hit.role, hit.text])).toEqual([
        ["m-1", "user", "hello there"],
        ["m-3", "assistant", "hi"],
      ]);
      const assistants = await t.store.vectors.nearestMessages(a, MODEL, v(0, 1), {
        roles: ["assistant"],
        limit: 5,
      });
      expect(ids(assistants)).toEqual(["m-3"]);
      // Conversation search leaves out the searching turn's own messages (issue 13).
      const others = await t.store.vectors.nearestMessages(a, MODEL, v(1, 0), {
        limit: 5,
        excludeRunId: "run-1",
      });
      expect(ids(others)).toEqual(["m-1"]);
    });

    it("finds the nearest passages by cosine, with tags, times and top-k", async () => {
      const a = await t.createAgent();
      const at = (id: string, ms: number, tags: string[]) => ({
        ...passage(id, `text ${id}`, tags),
        created_at_ms: ms,
      });
      await t.store.insertPassages(a, [
        at("p-1", 1_000, ["x"]),
        at("p-2", 2_000, ["x", "y"]),
        at("p-3", 3_000, []),
        at("p-4", 4_000, ["y"]),
      ]);
      await t.store.vectors.putVectors(a, "passage", MODEL, [
        { id: "p-1", vector: v(1, 0, 0) },
        { id: "p-2", vector: v(0.7, 0.7, 0) },
        { id: "p-3", vector: v(0, 1, 0) },
        { id: "p-4", vector: v(0, 0, 1) },
      ]);
      const near = async (options: Record<string, unknown>, q = v(1, 0.1, 0)) =>
        ids(await t.store.vectors.nearestPassages(a, MODEL, q, { topK: 10, ...options }));
      expect(await near({})).toEqual(["p-1", "p-2", "p-3", "p-4"]);
      expect(await near({ topK: 2 })).toEqual(["p-1", "p-2"]);
      expect(await near({ tags: ["x", "y"] })).toEqual(["p-2"]);
      expect(await near({ anyTags: ["y"] })).toEqual(["p-2", "p-4"]);
      expect(await near({ fromMs: 2_000, toMs: 3_000 })).toEqual(["p-2", "p-3"]);
      expect((await near({}, v(0, 0, 1)))[0]).toBe("p-4");
      // Only this model's vectors, only this agent's rows.
      expect(await t.store.vectors.nearestPassages(a, OTHER, v(1, 0, 0), { topK: 5 })).toEqual([]);
      const b = await t.createAgent();
      expect(await t.store.vectors.nearestPassages(b, MODEL, v(1, 0, 0), { topK: 5 })).toEqual([]);
      expect(
        await t.store.vectors.putVectors(b, "passage", MODEL, [{ id: "p-1", vector: v(1) }]),
      ).toBe(0);
    });

    it("deletes a passage's vector with it, and an agent's with the agent", async () => {
      const a = await t.createAgent();
      await t.store.insertPassages(a, [passage("p-1", "one"), passage("p-2", "two")]);
      await t.store.vectors.putVectors(a, "passage", MODEL, [
        { id: "p-1", vector: v(1, 0) },
        { id: "p-2", vector: v(0, 1) },
      ]);
      await t.store.deletePassage(a, "p-1");
      expect(await t.store.vectors.counts(a, MODEL)).toEqual({ embedded: 1, total: 1 });
      expect(ids(await t.store.vectors.nearestPassages(a, MODEL, v(1, 0), { topK: 5 }))).toEqual([
        "p-2",
      ]);
      // A new passage reusing the id has no vector of its own yet.
      await t.store.insertPassages(a, [passage("p-1", "again")]);
      expect(ids(await t.store.vectors.unembedded(a, "passage", MODEL, 0, 5))).toEqual(["p-1"]);
      expect(await t.store.vectors.agentsWithRows()).toContain(a);
      await t.store.deleteAgent(a);
      expect(await t.store.vectors.counts(a, MODEL)).toEqual({ embedded: 0, total: 0 });
      expect(await t.store.vectors.agentsWithRows()).not.toContain(a);
    });

    if (options.reopen) {
      const reopen = options.reopen;
      it("keeps vectors across a reopen", async () => {
        const a = await t.createAgent();
        await t.store.insertPassages(a, [passage("p-1", "one")]);
        await t.store.vectors.putVectors(a, "passage", MODEL, [
          { id: "p-1", vector: v(0.5, 0.25) },
        ]);
        t.store = await reopen(t.store);
        const found = await t.store.vectors.nearestPassages(a, MODEL, v(0.5, 0.25), { topK: 1 });
        expect(ids(found)).toEqual(["p-1"]);
        expect(await t.store.vectors.counts(a, MODEL)).toEqual({ embedded: 1, total: 1 });
      });
    }
  });
}
