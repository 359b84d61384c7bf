import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import type { ConversationRecord } from "../../records/conversation.js";
import type { AgentMessage } from "../../records/messages.js";
import type { PageQuery } from "../store.js";
import { type ContractContext, type StoreContractOptions, step, userMessage } from "./fixtures.js";

export function conversation(
  id: string,
  agentId: string,
  changes: Partial<ConversationRecord> = {},
): ConversationRecord {
  return {
    id,
    agent_id: agentId,
    summary: null,
    description: null,
    model: null,
    context_window_limit: null,
    hidden: false,
    archived: false,
    archived_at_ms: null,
    last_message_at_ms: null,
    created_at_ms: 1_000,
    updated_at_ms: 1_000,
    ...changes,
  };
}

const asc: PageQuery = { limit: 100, order: "asc" };
const ids = (items: readonly { id: string }[]) => items.map((item) => item.id);
const inConversation = (message: AgentMessage, conversationId: string): AgentMessage => ({
  ...message,
  conversation_id: conversationId,
});

export function conversationCases(t: ContractContext, options: StoreContractOptions): void {
  describe("conversations (decision 026)", () => {
    it("creates, reads, updates and deletes a conversation of an agent", async () => {
      const agentId = await t.createAgent();
      const record = conversation("conv-1", agentId, { summary: "about tea" });
      await t.store.conversations.create(record);
      expect(await t.store.conversations.get("conv-1")).toEqual(record);
      const archived = { ...record, archived: true, archived_at_ms: 2_000 };
      expect(await t.store.conversations.update(archived)).toBe(true);
      expect(await t.store.conversations.get("conv-1")).toEqual(archived);
      expect(await t.store.conversations.update(conversation("conv-none", agentId))).toBe(false);
      expect(await t.store.conversations.delete("conv-1")).toBe(true);
      expect(await t.store.conversations.delete("conv-1")).toBe(false);
      expect(await t.store.conversations.get("conv-1")).toBeNull();
    });

    it("refuses a conversation of no agent, a taken id and a record that does not parse", async () => {
      const agentId = await t.createAgent();
      await expect(
        t.store.conversations.create(conversation("conv-1", "agent-missing")),
      ).rejects.toThrow(NotFoundError);
      await t.store.conversations.create(conversation("conv-1", agentId));
      await expect(t.store.conversations.create(conversation("conv-1", agentId))).rejects.toThrow(
        ConflictError,
      );
      const bad = { ...conversation("conv-2", agentId), context_window_limit: 0 };
      await expect(t.store.conversations.create(bad)).rejects.toThrow(ValidationError);
      expect(await t.store.conversations.get("conv-2")).toBeNull();
    });

    it("lists a project's conversations in creation order, filtered and paged", async () => {
      const one = await t.createAgent();
      const two = await t.createAgent();
      const other = await t.createAgent(undefined, "project-2");
      await t.store.conversations.create(conversation("c-1", one, { summary: "Tea and cake" }));
      await t.store.conversations.create(conversation("c-2", two, { archived: true }));
      await t.store.conversations.create(conversation("c-3", one, { hidden: true }));
      await t.store.conversations.create(conversation("c-4", one));
      await t.store.conversations.create(conversation("c-5", other));
      const list = (filter: object, page: PageQuery = asc) =>
        t.store.conversations.list({ projectId: "project-1", ...filter }, page);
      expect(ids(await list({}))).toEqual(["c-1", "c-2", "c-4"]);
      expect(ids(await list({ agentId: one }))).toEqual(["c-1", "c-4"]);
      expect(ids(await list({ archived: false }))).toEqual(["c-1", "c-4"]);
      expect(ids(await list({ archived: true }))).toEqual(["c-2"]);
      expect(ids(await list({ summarySearch: "TEA" }))).toEqual(["c-1"]);
      expect(ids(await list({}, { limit: 2, order: "desc" }))).toEqual(["c-4", "c-2"]);
      expect(ids(await list({}, { after: "c-1", limit: 5, order: "asc" }))).toEqual(["c-2", "c-4"]);
      // A cursor outside the list (another project's, a hidden one) gives an empty page.
      expect(await list({}, { after: "c-5", limit: 5, order: "asc" })).toEqual([]);
      expect(await list({}, { after: "c-3", limit: 5, order: "asc" })).toEqual([]);
    });

    it("keeps each conversation's messages apart from the default conversation's", async () => {
      const agentId = await t.createAgent();
      await t.store.conversations.create(conversation("conv-a", agentId));
      const [first] = await t.say(agentId, "in the default");
      const inA = inConversation(userMessage("m-a1", "in A"), "conv-a");
      await t.store.commit(step(agentId, { messages: [inA] }));
      const [last] = await t.say(agentId, "default again");
      const recent = (conversationId?: string | null) =>
        t.store.recentMessages(agentId, 10, conversationId);
      expect(ids(await recent())).toEqual([first, "m-a1", last]);
      expect(ids(await recent(null))).toEqual([first, last]);
      expect(await recent("conv-a")).toEqual([inA]);
      expect(ids(await t.store.recentMessages(agentId, 1, null))).toEqual([last]);
      const page = await t.store.conversations.listMessages(agentId, "conv-a", asc);
      expect(page).toEqual([inA]);
      expect(ids(await t.store.conversations.listMessages(agentId, null, asc))).toEqual([
        first,
        last,
      ]);
      // Deleting the conversation keeps its messages: they are the agent's.
      await t.store.conversations.delete("conv-a");
      expect(await recent("conv-a")).toEqual([inA]);
    });

    it("creates a conversation with the messages it starts with, atomically", async () => {
      const agentId = await t.createAgent();
      const [taken] = await t.say(agentId, "already here");
      const copies = [userMessage("copy-1", "one"), userMessage("copy-2", "two")];
      await t.store.conversations.create(conversation("conv-f", agentId), copies);
      const stored = await t.store.conversations.listMessages(agentId, "conv-f", asc);
      expect(stored).toEqual(copies.map((m) => inConversation(m, "conv-f")));
      const clash = [userMessage("copy-3", "three"), userMessage(taken as string, "taken")];
      await expect(
        t.store.conversations.create(conversation("conv-g", agentId), clash),
      ).rejects.toThrow(ConflictError);
      expect(await t.store.conversations.get("conv-g")).toBeNull();
      expect(await t.store.recentMessages(agentId, 10, "conv-g")).toEqual([]);
    });

    it("lists and finds messages across a project's agents, and no other project's", async () => {
      const one = await t.createAgent();
      const two = await t.createAgent();
      const other = await t.createAgent(undefined, "project-2");
      await t.store.conversations.create(conversation("conv-a", two));
      const [m1] = await t.say(one, "first");
      await t.store.commit(
        step(two, { messages: [inConversation(userMessage("m-2", "b"), "conv-a")] }),
      );
      const [m3] = await t.say(other, "elsewhere");
      const [m4] = await t.say(two, "fourth");
      const list = (filter: object, page: PageQuery = asc) =>
        t.store.conversations.listProjectMessages({ projectId: "project-1", ...filter }, page);
      const all = await list({});
      expect(all.map((o) => [o.agentId, o.message.id])).toEqual([
        [one, m1],
        [two, "m-2"],
        [two, m4],
      ]);
      expect((await list({ conversationId: "conv-a" })).map((o) => o.message.id)).toEqual(["m-2"]);
      expect((await list({ conversationId: null })).map((o) => o.message.id)).toEqual([m1, m4]);
      expect((await list({ agentId: two })).map((o) => o.message.id)).toEqual(["m-2", m4]);
      const newest = await list({}, { limit: 1, order: "desc" });
      expect(newest.map((o) => o.message.id)).toEqual([m4]);
      expect(await list({}, { after: m3 as string, limit: 5, order: "asc" })).toEqual([]);
      expect(await t.store.conversations.getMessage("project-1", "m-2")).toMatchObject({
        agentId: two,
        message: { id: "m-2", conversation_id: "conv-a" },
      });
      expect(await t.store.conversations.getMessage("project-1", m3 as string)).toBeNull();
    });

    it("deletes an agent's conversations with the agent", async () => {
      const agentId = await t.createAgent();
      await t.store.conversations.create(conversation("conv-1", agentId));
      await t.store.deleteAgent(agentId);
      expect(await t.store.conversations.get("conv-1")).toBeNull();
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps conversations and their messages across close and reopen", async () => {
        const agentId = await t.createAgent();
        await t.store.conversations.create(conversation("conv-1", agentId), [
          userMessage("m-1", "kept"),
        ]);
        t.store = await reopen(t.store);
        expect(await t.store.conversations.get("conv-1")).toEqual(conversation("conv-1", agentId));
        expect(ids(await t.store.recentMessages(agentId, 5, "conv-1"))).toEqual(["m-1"]);
      });
    }
  });
}
