import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../src/agent/compaction.js";
import type { ModelRequest } from "../src/llm/model.js";
import { ModelError } from "../src/llm/model-error.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, `/v1/conversations` and the global `/v1/messages` routes, through Letta's official
// client (decision 026): several conversations with one agent, each its own history, the
// agent's memory shared.

/** What the model saw: the user messages of its context, and whether memory holds the tea. */
function seen(request: ModelRequest): string {
  const users = request.messages
    .filter((m) => m.role === "user" && !m.content.startsWith("[system]"))
    .map((m) => m.content);
  return `saw: ${users.join("|")}${request.system.includes("likes tea") ? " [tea]" : ""}`;
}

const model = createSimModel({
  script: (request) => {
    if (request.system === SUMMARY_PROMPT) return { text: "they talked about greek letters" };
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: "saved" };
    if (last?.role === "user" && last.content.includes("remember"))
      return {
        toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }],
      };
    return { text: seen(request) };
  },
});

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer({ model });
});
afterAll(() => server?.close());

type Loose = { id: string; message_type: string; content?: unknown; conversation_id?: unknown };
const loose = (messages: readonly unknown[]) => messages as Loose[];
const replies = (messages: readonly unknown[]) =>
  loose(messages)
    .filter((m) => m.message_type === "assistant_message")
    .map((m) => m.content);

async function agentWithTwoConversations() {
  const client = server.client();
  const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
  const a = await client.conversations.create({ agent_id: agent.id, summary: "about alpha" });
  const b = await client.conversations.create({ agent_id: agent.id });
  return { client, agent, a, b };
}

/** Sends in a conversation without streaming (the client's types only know the stream). */
async function sendJson(conversationId: string, text: string) {
  const client = server.client();
  const response = await client.post(`/v1/conversations/${conversationId}/messages`, {
    body: { messages: [{ role: "user", content: text }], streaming: false },
  });
  return (response as { messages: unknown[] }).messages;
}

describe("conversations (issue #15, decision 026)", () => {
  it("keeps one history per conversation while the agent's memory is shared", async () => {
    const { client, agent, a, b } = await agentWithTwoConversations();
    expect(replies(await sendJson(a.id, "alpha"))).toEqual(["saw: alpha"]);
    expect(replies(await sendJson(b.id, "beta"))).toEqual(["saw: beta"]);
    // Memory written in one conversation is in the next model call of every other one.
    await sendJson(b.id, "remember that I like tea");
    const stream = await client.conversations.messages.create(a.id, {
      messages: [{ role: "user", content: "gamma" }],
    });
    const chunks: Loose[] = [];
    for await (const chunk of stream) chunks.push(chunk as unknown as Loose);
    expect(replies(chunks)).toEqual(["saw: alpha|gamma [tea]"]);
    expect(chunks.find((c) => c.message_type === "assistant_message")?.conversation_id).toBe(a.id);

    const inA = (await client.conversations.messages.list(a.id, { order: "asc" })).items;
    expect(loose(inA).map((m) => m.content)).toEqual([
      "alpha",
      "saw: alpha",
      "gamma",
      "saw: alpha|gamma [tea]",
    ]);
    // The agent's default conversation has none of them, and the agent's messages all.
    const direct = await client.conversations.messages.list("default", { agent_id: agent.id });
    expect(direct.items).toEqual([]);
    const all = (await client.agents.messages.list(agent.id, { limit: 100 })).items;
    expect(all.length).toBeGreaterThan(inA.length);
    expect((await client.conversations.retrieve(a.id)).last_message_at).toEqual(expect.any(String));
  });

  it("runs messages sent to two conversations at once one after the other, each in its own history", async () => {
    const { client, agent, a, b } = await agentWithTwoConversations();
    const [inA, inB] = await Promise.all([sendJson(a.id, "one"), sendJson(b.id, "two")]);
    expect(replies(inA)).toEqual(["saw: one"]);
    expect(replies(inB)).toEqual(["saw: two"]);
    // One run at a time per agent: the agent's history holds each run whole, never interleaved.
    const all = (await client.agents.messages.list(agent.id, { order: "asc" })).items;
    const runOf = all.map((m) => (m as { run_id?: string }).run_id);
    expect(runOf).toHaveLength(4);
    expect(runOf[0]).toBe(runOf[1]);
    expect(runOf[2]).toBe(runOf[3]);
    expect(runOf[1]).not.toBe(runOf[2]);
  });

  it("lists, retrieves, updates, archives and deletes conversations", async () => {
    const { client, agent, a, b } = await agentWithTwoConversations();
    expect((await client.conversations.list({ agent_id: agent.id })).map((c) => c.id)).toEqual([
      b.id,
      a.id,
    ]);
    const found = await client.conversations.list({ agent_id: agent.id, summary_search: "ALPHA" });
    expect(found.map((c) => c.id)).toEqual([a.id]);
    const updated = await client.conversations.update(a.id, { description: "d", archived: true });
    expect(updated).toMatchObject({
      id: a.id,
      agent_id: agent.id,
      description: "d",
      archived: true,
    });
    expect(updated.archived_at).toEqual(expect.any(String));
    expect((await client.conversations.list({ agent_id: agent.id })).map((c) => c.id)).toEqual([
      b.id,
    ]);
    const archived = await client.conversations.list({
      agent_id: agent.id,
      archive_status: "archived",
    });
    expect(archived.map((c) => c.id)).toEqual([a.id]);
    await client.conversations.delete(b.id);
    await expect(client.conversations.retrieve(b.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.conversations.create({ agent_id: "agent-missing" })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      client.conversations.update(a.id, { context_window_limit: -1 }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "context_window_limit" })] },
    });
    // Settings it would not honour are said to be unsupported, not dropped.
    const settings = { model_settings: { temperature: 0.1 } } as Record<string, unknown>;
    await expect(
      client.conversations.create({ agent_id: agent.id, ...settings }),
    ).rejects.toMatchObject({ status: 422, error: { errors: [{ path: "model_settings" }] } });
    await expect(client.conversations.update(a.id, settings)).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "model_settings" }] },
    });
  });

  it("forks a conversation up to a message, and the fork goes on alone", async () => {
    const { client, a } = await agentWithTwoConversations();
    await sendJson(a.id, "alpha");
    await sendJson(a.id, "beta");
    const first = (await client.conversations.messages.list(a.id, { order: "asc" })).items;
    const fork = await client.conversations.fork(a.id, { message_id: first[1]?.id ?? "" });
    expect(fork.id).not.toBe(a.id);
    const copied = (await client.conversations.messages.list(fork.id, { order: "asc" })).items;
    expect(loose(copied).map((m) => m.content)).toEqual(["alpha", "saw: alpha"]);
    expect(replies(await sendJson(fork.id, "delta"))).toEqual(["saw: alpha|delta"]);
    expect(replies(await sendJson(a.id, "epsilon"))).toEqual(["saw: alpha|beta|epsilon"]);
  });

  it("compacts a conversation into its own summary, and summarize compacts the agent's", async () => {
    const { client, agent, a, b } = await agentWithTwoConversations();
    for (const text of ["alpha", "beta", "gamma"]) await sendJson(a.id, text);
    await sendJson(b.id, "zeta");
    const compacted = await client.conversations.messages.compact(a.id, {
      compaction_settings: { mode: "all" },
    });
    expect(compacted).toEqual({
      summary: "they talked about greek letters",
      num_messages_before: 6,
      num_messages_after: 0,
    });
    // The summary stands for A's history in A; B's context is its own.
    expect(replies(await sendJson(a.id, "delta"))).toEqual(["saw: delta"]);
    expect(replies(await sendJson(b.id, "eta"))).toEqual(["saw: zeta|eta"]);
    // Messages are never removed by compaction.
    expect((await client.conversations.messages.list(a.id)).items).toHaveLength(8);

    await expect(client.agents.messages.compact(agent.id)).rejects.toMatchObject({ status: 400 });
    await client.agents.messages.create(agent.id, { input: "one" });
    await client.agents.messages.create(agent.id, { input: "two" });
    const summarized = await client.agents.messages.compact(agent.id, {
      compaction_settings: { mode: "all" },
    });
    expect(summarized.num_messages_before).toBe(4);
    expect(summarized.num_messages_after).toBe(0);
  });

  it("answers cancel, stream and recompile as Letta does when nothing runs", async () => {
    const { client, agent, a } = await agentWithTwoConversations();
    await expect(client.conversations.cancel(a.id)).rejects.toMatchObject({
      status: 409,
      error: { code: "NO_ACTIVE_RUNS_TO_CANCEL" },
    });
    await expect(client.conversations.messages.stream(a.id)).rejects.toMatchObject({ status: 400 });
    await expect(client.conversations.messages.list("default")).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "agent_id" })] },
    });
    await client.agents.blocks.update("human", { agent_id: agent.id, value: "name: Ada" });
    const prompt = await client.conversations.recompile(a.id);
    expect(prompt).toContain("name: Ada");
  });
});

describe("global messages (issue #15)", () => {
  it("lists, retrieves and searches messages across the project's agents", async () => {
    const { client, agent, a } = await agentWithTwoConversations();
    await sendJson(a.id, "the ocelot sleeps");
    await client.agents.messages.create(agent.id, { input: "a quiet meadow" });
    const inA = await client.messages.list({ conversation_id: a.id, order: "asc" });
    expect(loose(inA).map((m) => m.content)).toEqual([
      "the ocelot sleeps",
      "saw: the ocelot sleeps",
    ]);
    const newest = await client.messages.list({ limit: 1 });
    expect(loose(newest).map((m) => m.content)).toEqual(["saw: a quiet meadow"]);
    const id = inA[0]?.id ?? "";
    const one = await client.messages.retrieve(id);
    expect(one).toEqual([
      expect.objectContaining({ id, agent_id: agent.id, conversation_id: a.id }),
    ]);
    await expect(client.messages.retrieve("message-missing")).rejects.toMatchObject({
      status: 404,
    });

    const hits = await client.messages.search({ query: "ocelot", agent_id: agent.id });
    expect(hits.map((h) => h.message_id)).toContain(id);
    expect(hits[0]).toMatchObject({ conversation_id: a.id, agent_id: agent.id });
    const elsewhere = await client.messages.search({ query: "meadow", conversation_id: a.id });
    expect(elsewhere).toEqual([]);
    await expect(client.messages.search({ query: "" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "query" })] },
    });
  });
});

describe("a failed model call (issue #15, decision 026)", () => {
  it("keeps the acknowledged message, fails the run with Letta's error, and the next turn answers it", async () => {
    let failing = true;
    const flaky = createSimModel({
      script: (request) =>
        failing ? new ModelError("overloaded", "provider overloaded") : { text: seen(request) },
    });
    const own = await startTestServer({ model: flaky });
    try {
      const client = own.client();
      const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
      const conversation = await client.conversations.create({ agent_id: agent.id });
      const send = () =>
        client.agents.messages.create(agent.id, {
          messages: [{ role: "user", content: "first question", otid: "otid-first" }],
        });
      await expect(send()).rejects.toMatchObject({
        status: 503,
        error: { error: { type: "llm_provider_overloaded", detail: "provider overloaded" } },
      });
      // The message was committed before the model was called: it stays, unanswered.
      const history = (await client.agents.messages.list(agent.id, { order: "asc" })).items;
      expect(loose(history).map((m) => [m.message_type, m.content])).toEqual([
        ["user_message", "first question"],
      ]);
      const [run] = (await client.runs.list({ agent_id: agent.id })).items;
      expect(run).toMatchObject({ status: "failed", stop_reason: "llm_api_error" });
      // A retry of the same message is the same request: it answers the same failure and
      // stores nothing twice.
      await expect(send()).rejects.toMatchObject({ status: 500, error: { code: "LLM_ERROR" } });
      expect((await client.agents.messages.list(agent.id)).items).toHaveLength(1);
      // A conversation's failure stays in it; the agent's next turn sees the unanswered message.
      await expect(sendJsonOn(own, conversation.id, "in a conversation")).rejects.toMatchObject({
        status: 503,
      });
      failing = false;
      const next = await client.agents.messages.create(agent.id, { input: "second question" });
      expect(replies(next.messages)).toEqual(["saw: first question|second question"]);
    } finally {
      await own.close();
    }
  });
});

async function sendJsonOn(
  target: Awaited<ReturnType<typeof startTestServer>>,
  conversationId: string,
  text: string,
) {
  return target.client().post(`/v1/conversations/${conversationId}/messages`, {
    body: { messages: [{ role: "user", content: text }], streaming: false },
  });
}

describe("tenancy (issue #15, decision 026)", () => {
  it("keeps one project's conversations and messages from another", async () => {
    const tenants = await startTestServer({
      model,
      tokens: new Map([
        ["key-a", "a"],
        ["key-b", "b"],
      ]),
    });
    try {
      const a = tenants.client("key-a");
      const b = tenants.client("key-b");
      const agent = await a.agents.create({ agent_type: "letta_v1_agent" });
      const conversation = await a.conversations.create({ agent_id: agent.id });
      await a.agents.messages.create(agent.id, { input: "a secret walrus" });
      const [message] = await a.messages.list({ limit: 1 });
      await expect(b.conversations.retrieve(conversation.id)).rejects.toMatchObject({
        status: 404,
      });
      await expect(b.conversations.create({ agent_id: agent.id })).rejects.toMatchObject({
        status: 404,
      });
      expect(await b.conversations.list()).toEqual([]);
      expect(await b.messages.list()).toEqual([]);
      await expect(b.messages.retrieve(message?.id ?? "")).rejects.toMatchObject({ status: 404 });
      expect(await b.messages.search({ query: "walrus" })).toEqual([]);
      expect((await a.messages.search({ query: "walrus" })).length).toBeGreaterThan(0);
    } finally {
      await tenants.close();
    }
  });
});
