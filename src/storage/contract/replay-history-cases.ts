import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../records/run-journal.js";
import {
  agentRecord,
  block,
  type ContractContext,
  passage,
  session,
  step,
  userMessage,
} from "./fixtures.js";

const begin: JournalEntry = { kind: "begin", approved_tools: [], client_tools: [] };
const finish: JournalEntry = { kind: "finish", stop_reason: "end_turn" };

/** The run journal (replay) and memory history (forks): written with their changes, in order. */
export function replayHistoryCases(t: ContractContext): void {
  describe("run journal", () => {
    it("keeps each run's entries in commit order, apart from other runs", async () => {
      const id = await t.createAgent();
      const inRun = (runId: string) => ({ ...session("running"), run_id: runId });
      const started: JournalEntry = { kind: "started", index: 0 };
      await t.store.commit(step(id, { state: inRun("run-a"), journal: [begin] }));
      await t.store.commit(step(id, { state: inRun("run-b"), journal: [begin] }));
      await t.store.commit(step(id, { state: inRun("run-a"), journal: [started, finish] }));
      expect(await t.store.listRunJournal("run-a")).toEqual([begin, started, finish]);
      expect(await t.store.listRunJournal("run-b")).toEqual([begin]);
      expect(await t.store.listRunJournal("run-none")).toEqual([]);
    });

    it("writes no entry of a commit that fails, and refuses an invalid entry whole", async () => {
      const id = await t.createAgent();
      const state = { ...session("running"), run_id: "run-a" };
      const bad = { kind: "step", step: { kind: "nope" } } as unknown as JournalEntry;
      await expect(
        t.store.commit(step(id, { state, journal: [begin, bad] })),
      ).rejects.toMatchObject({ name: "ValidationError" });
      const taken = userMessage("message-taken", "x");
      await t.store.commit(step(id, { messages: [taken] }));
      await expect(
        t.store.commit(step(id, { state, messages: [taken], journal: [begin] })),
      ).rejects.toThrow();
      expect(await t.store.listRunJournal("run-a")).toEqual([]);
    });

    it("deletes an agent's journals with the agent", async () => {
      const id = await t.createAgent();
      const state = { ...session("running"), run_id: "run-a" };
      await t.store.commit(step(id, { state, journal: [begin] }));
      await t.store.deleteAgent(id);
      expect(await t.store.listRunJournal("run-a")).toEqual([]);
    });
  });

  describe("memory history", () => {
    it("places each change among the agent's messages: 2N in a commit, 2N+1 between", async () => {
      const id = await t.createAgent();
      await t.say(id, "one");
      await t.store.putBlock(id, block("human", "edited"));
      const note = userMessage(t.fresh("message"), "two");
      const remembered = block("human", "remembered");
      await t.store.commit(
        step(id, { messages: [note], memory: { blocks: [remembered], passages: [] } }),
      );
      await t.store.insertPassages(id, [passage("passage-1", "gulls")]);
      await t.store.deletePassage(id, "passage-1");
      await t.store.detachBlock(id, "persona");
      expect(await t.store.memoryHistory(id)).toEqual([
        { position: 0, change: { kind: "block", block: block("persona") } },
        { position: 0, change: { kind: "block", block: block("human") } },
        { position: 3, change: { kind: "block", block: block("human", "edited") } },
        { position: 4, change: { kind: "block", block: remembered } },
        { position: 5, change: { kind: "passage", id: "passage-1" } },
        {
          position: 5,
          change: { kind: "passage_deleted", passage: passage("passage-1", "gulls") },
        },
        { position: 5, change: { kind: "block_deleted", label: "persona" } },
      ]);
    });

    it("begins an agent created with history after that history, with a baseline", async () => {
      const id = t.fresh("agent");
      const history = [userMessage(t.fresh("message"), "a"), userMessage(t.fresh("message"), "b")];
      await t.store.createAgent({
        agent: agentRecord(id),
        blocks: [block("human")],
        messages: history,
      });
      expect(await t.store.memoryHistory(id)).toEqual([
        { position: 4, change: { kind: "baseline" } },
        { position: 4, change: { kind: "block", block: block("human") } },
      ]);
    });

    it("records nothing for a deletion that deletes nothing, and forgets a deleted agent", async () => {
      const id = await t.createAgent();
      expect(await t.store.deletePassage(id, "passage-none")).toBe(false);
      expect(await t.store.detachBlock(id, "none")).toBe(false);
      expect(await t.store.memoryHistory(id)).toHaveLength(2);
      await t.store.deleteAgent(id);
      expect(await t.store.memoryHistory(id)).toEqual([]);
    });
  });
}
