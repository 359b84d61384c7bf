import { describe, expect, it } from "vitest";
import type { Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import type { StepCommit } from "../turn-store.js";
import {
  asc,
  assistantMessage,
  block,
  busySession,
  type ContractContext,
  desc,
  ids,
  passage,
  reasoningMessage,
  run,
  session,
  step,
  toolReturn,
  userMessage,
} from "./fixtures.js";

/** Commits and what they write: messages, their search, and passages. */
export function historyCases(t: ContractContext): void {
  describe("commits", () => {
    it("appends messages in order and applies blocks, passages, session and run", async () => {
      const id = await t.createAgent();
      const first = [userMessage("m-1", "hi"), reasoningMessage("m-2", "they said hi")];
      await t.store.commit(step(id, { messages: first, state: session("running") }));
      await t.store.commit(
        step(id, {
          messages: [assistantMessage("m-3", "hello")],
          memory: { blocks: [block("human", "says hi")], passages: [passage("p-1", "greeting")] },
          state: busySession(),
          run: run("run-1", id, "otid-1"),
        }),
      );
      expect(ids(await t.store.listMessages(id, asc()))).toEqual(["m-1", "m-2", "m-3"]);
      expect(await t.store.listMessages(id, asc())).toEqual([
        ...first,
        assistantMessage("m-3", "hello"),
      ]);
      expect(await t.store.countMessages(id)).toBe(3);
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human", "says hi")]);
      expect(await t.store.listPassages(id, asc())).toEqual([passage("p-1", "greeting")]);
      expect(await t.store.loadSession(id)).toEqual(busySession());
      expect(await t.store.getRun("run-1")).toEqual(run("run-1", id, "otid-1"));
    });

    it("orders messages by commit, not by their ids", async () => {
      const id = await t.createAgent();
      await t.store.commit(
        step(id, { messages: [userMessage("zz", "first"), userMessage("aa", "second")] }),
      );
      await t.store.commit(step(id, { messages: [userMessage("mm", "third")] }));
      expect(ids(await t.store.recentMessages(id, 10))).toEqual(["zz", "aa", "mm"]);
      expect(ids(await t.store.listMessages(id, desc()))).toEqual(["mm", "aa", "zz"]);
    });

    it("leaves nothing of a commit behind when one of its messages is invalid", async () => {
      const id = await t.createAgent();
      await t.store.commit(step(id, { state: session("idle") }));
      const invalid = { ...userMessage("m-bad", "x"), content: 42 } as unknown as AgentMessage;
      await expect(
        t.store.commit(
          step(id, {
            messages: [userMessage("m-ok", "fine"), invalid],
            memory: { blocks: [block("human", "changed")], passages: [passage("p-1", "new")] },
            state: session("running"),
            run: run("run-1", id),
          }),
        ),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      await expectUntouched(id);
    });

    it("leaves nothing of a commit behind when a later row conflicts with a stored one", async () => {
      const id = await t.createAgent();
      await t.store.commit(
        step(id, { messages: [userMessage("m-1", "hi")], state: session("idle") }),
      );
      await t.store.putRun(run("run-0", id, "otid-taken"));
      const conflicts: StepCommit[] = [
        step(id, {
          messages: [userMessage("m-2", "new"), userMessage("m-1", "again")],
          memory: { blocks: [block("human", "changed")], passages: [passage("p-1", "new")] },
        }),
        step(id, {
          messages: [userMessage("m-2", "new")],
          memory: { blocks: [block("human", "changed")], passages: [passage("p-1", "new")] },
          run: run("run-1", id, "otid-taken"),
        }),
      ];
      for (const conflict of conflicts) {
        await expect(t.store.commit(conflict)).rejects.toMatchObject({ code: "CONFLICT" });
        await expectUntouched(id, ["m-1"]);
        expect(await t.store.getRun("run-1")).toBeNull();
      }
    });

    async function expectUntouched(id: string, messageIds: string[] = []): Promise<void> {
      expect(ids(await t.store.listMessages(id, asc()))).toEqual(messageIds);
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human")]);
      expect(await t.store.listPassages(id, asc())).toEqual([]);
      expect(await t.store.searchPassages(id, "new", { topK: 5 })).toEqual([]);
      expect(await t.store.loadSession(id)).toEqual(session("idle"));
      expect(await t.store.interruptedSessions()).toEqual([]);
    }

    it("rejects a commit for an agent that does not exist", async () => {
      await expect(
        t.store.commit(step("agent-missing", { messages: [userMessage("m-1", "hi")] })),
      ).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await t.store.countMessages("agent-missing")).toBe(0);
    });

    it("rejects a commit whose run belongs to another agent", async () => {
      const id = await t.createAgent();
      const other = await t.createAgent();
      await expect(t.store.commit(step(id, { run: run("run-1", other) }))).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
      });
      expect(await t.store.getRun("run-1")).toBeNull();
    });
  });

  describe("messages", () => {
    it("returns the newest messages oldest first", async () => {
      const id = await t.createAgent();
      const [, , c, d] = await t.say(id, "one", "two", "three", "four");
      expect(ids(await t.store.recentMessages(id, 2))).toEqual([c, d]);
      expect(await t.store.recentMessages(id, 10)).toHaveLength(4);
      expect(await t.store.recentMessages(id, 0)).toEqual([]);
      expect(await t.store.recentMessages("agent-missing", 5)).toEqual([]);
    });

    it("counts an agent's messages and no one else's", async () => {
      const id = await t.createAgent();
      const other = await t.createAgent();
      await t.say(id, "one", "two");
      await t.say(other, "three");
      expect(await t.store.countMessages(id)).toBe(2);
      expect(await t.store.countMessages("agent-missing")).toBe(0);
    });
  });

  describe("conversation search", () => {
    async function conversation(): Promise<string> {
      const id = await t.createAgent();
      await t.store.commit(
        step(id, {
          messages: [
            userMessage("m-user", "Tell me about the lighthouse", "2025-03-01T10:00:00.000Z"),
            reasoningMessage("m-think", "the lighthouse question again"),
            assistantMessage("m-assistant", "The lighthouse was built in 1871"),
            toolReturn("m-tool", "lighthouse records: keeper logs"),
            userMessage("m-other", "What about the weather?"),
          ],
        }),
      );
      return id;
    }

    it("finds messages by their words, with role, text and time", async () => {
      const id = await conversation();
      const hits = await t.store.searchMessages(id, "lighthouse", { limit: 10 });
      expect(ids(hits).sort()).toEqual(["m-assistant", "m-tool", "m-user"]);
      expect(hits.find((hit) => hit.id === "m-user")).toEqual({
        id: "m-user",
        role: "user",
        text: "Tell me about the lighthouse",
        created_at_ms: Date.parse("2025-03-01T10:00:00.000Z"),
      });
    });

    it("filters by role and stops at the limit", async () => {
      const id = await conversation();
      const roles = ["assistant", "tool"];
      expect(
        ids(await t.store.searchMessages(id, "lighthouse", { roles, limit: 10 })).sort(),
      ).toEqual(["m-assistant", "m-tool"]);
      expect(await t.store.searchMessages(id, "lighthouse", { limit: 2 })).toHaveLength(2);
      expect(await t.store.searchMessages(id, "lighthouse", { roles: [], limit: 10 })).toEqual([]);
    });

    it("finds a send_message reply by what it said, and leaves out a run's messages (issue 13)", async () => {
      const id = await t.createAgent();
      const base = { date: "2025-03-01T10:00:00.000Z", step_id: "step-9", otid: null };
      const call = (callId: string, name: string, args: string): AgentMessage => ({
        ...base,
        id: `m-call-${callId}`,
        run_id: "run-9",
        message_type: "tool_call_message",
        tool_call: { name, arguments: args, tool_call_id: callId },
      });
      const sent = (callId: string, name: string): AgentMessage => ({
        ...base,
        id: `m-ret-${callId}`,
        run_id: "run-9",
        message_type: "tool_return_message",
        name,
        tool_call_id: callId,
        tool_return: "sent: the lighthouse answer",
        status: "success",
      });
      await t.store.commit(
        step(id, {
          messages: [
            userMessage("m-ask", "lighthouse again?"),
            call(
              "c1",
              "send_message",
              '{"message":"The lighthouse is red","request_heartbeat":false}',
            ),
            sent("c1", "send_message"),
            call("c2", "conversation_search", '{"query":"lighthouse"}'),
            sent("c2", "conversation_search"),
            { ...userMessage("m-now", "where is the lighthouse"), run_id: "run-now" },
          ],
        }),
      );
      const hits = await t.store.searchMessages(id, "lighthouse", { limit: 10 });
      expect(ids(hits).sort()).toEqual(["m-ask", "m-call-c1", "m-now"]);
      expect(hits.find((hit) => hit.id === "m-call-c1")).toMatchObject({
        role: "assistant",
        text: "The lighthouse is red",
      });
      expect(await t.store.searchMessages(id, "heartbeat", { limit: 10 })).toEqual([]);
      const others = await t.store.searchMessages(id, "lighthouse", {
        limit: 10,
        excludeRunId: "run-now",
      });
      expect(ids(others).sort()).toEqual(["m-ask", "m-call-c1"]);
    });

    it("treats query text as words, never as query syntax", async () => {
      const id = await conversation();
      for (const query of ['"weather', "weather OR NEAR(", "weather*", "-weather ^ AND"]) {
        expect(ids(await t.store.searchMessages(id, query, { limit: 10 }))).toEqual(["m-other"]);
      }
      expect(await t.store.searchMessages(id, "  ?! ", { limit: 10 })).toEqual([]);
      expect(await t.store.searchMessages(id, "submarine", { limit: 10 })).toEqual([]);
    });
  });

  describe("passages", () => {
    const shore = [
      passage("p-both", "the lighthouse keeper feeds the gulls", ["coast", "birds"]),
      passage("p-gulls", "gulls nest on cliffs", ["birds"]),
      passage("p-light", "a lighthouse on rocks", ["coast"]),
      passage("p-tea", "tea and biscuits at four", []),
      passage("p-rain", "rain over the harbour", ["coast"]),
    ];

    it("inserts, lists in insertion order and deletes passages", async () => {
      const id = await t.createAgent();
      await t.store.insertPassages(id, shore);
      expect(await t.store.listPassages(id, asc())).toEqual(shore);
      expect(ids(await t.store.listPassages(id, desc(2, { after: "p-tea" })))).toEqual([
        "p-light",
        "p-gulls",
      ]);
      expect(await t.store.deletePassage(id, "p-tea")).toBe(true);
      expect(await t.store.deletePassage(id, "p-tea")).toBe(false);
      expect(await t.store.searchPassages(id, "biscuits", { topK: 5 })).toEqual([]);
      expect(ids(await t.store.listPassages(id, asc()))).toEqual([
        "p-both",
        "p-gulls",
        "p-light",
        "p-rain",
      ]);
    });

    it("ranks a passage with the query's words above those without them", async () => {
      const id = await t.createAgent();
      await t.store.insertPassages(id, shore);
      const found = await t.store.searchPassages(id, "lighthouse gulls", { topK: 5 });
      expect(found[0]).toEqual(shore[0]);
      expect(ids(found).sort()).toEqual(["p-both", "p-gulls", "p-light"]);
      expect(await t.store.searchPassages(id, "lighthouse gulls", { topK: 1 })).toEqual([shore[0]]);
    });

    it("keeps only passages that carry every given tag", async () => {
      const id = await t.createAgent();
      await t.store.insertPassages(id, shore);
      const search = (tags: string[]) =>
        t.store.searchPassages(id, "lighthouse gulls", { tags, topK: 5 });
      expect(ids(await search(["coast", "birds"]))).toEqual(["p-both"]);
      expect(ids(await search(["birds"])).sort()).toEqual(["p-both", "p-gulls"]);
      expect(await search(["inland"])).toEqual([]);
    });

    it("rejects a passage whose id is taken and inserts none of the batch", async () => {
      const id = await t.createAgent();
      await t.store.insertPassages(id, [shore[0] as Passage]);
      await expect(
        t.store.insertPassages(id, [shore[1] as Passage, shore[0] as Passage]),
      ).rejects.toMatchObject({
        code: "CONFLICT",
      });
      await expect(
        t.store.insertPassages("agent-missing", [passage("p-new", "x")]),
      ).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      expect(ids(await t.store.listPassages(id, asc()))).toEqual(["p-both"]);
    });
  });
}
