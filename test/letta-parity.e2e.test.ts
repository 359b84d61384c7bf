import { afterEach, describe, expect, it } from "vitest";
import { ModelError } from "../src/llm/model-error.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, "Semantics that differ today": each case is what Letta's server does, through
// Letta's official client.

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Loose = Record<string, unknown> & { id: string; message_type: string };
const loose = (messages: readonly unknown[]) => messages as Loose[];

/** A model that calls memory_insert once, then answers in text. */
const insertThenAnswer = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "saved" }
        : {
            toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }],
          },
  });

async function approvalAgent() {
  server = await startTestServer({ model: insertThenAnswer() });
  const client = server.client();
  const agent = await client.agents.create({
    agent_type: "letta_v1_agent",
    tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
  });
  const asked = await client.agents.messages.create(agent.id, { input: "note it" });
  const request = loose(asked.messages).find((m) => m.message_type === "approval_request_message");
  const callId = (request?.tool_call as { tool_call_id: string } | undefined)?.tool_call_id ?? "";
  return { client, agent, asked, request, callId };
}

describe("message history cursors (issue #15)", () => {
  it("reads after as newer and before as older whatever the order, and shows a desc page oldest first", async () => {
    server = await startTestServer({ model: createSimModel({ script: () => ({ text: "ok" }) }) });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    for (const text of ["one", "two", "three"])
      await client.agents.messages.create(agent.id, { input: text });
    const all = (await client.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;
    const ids = all.map((m) => m.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const cursor = ids[2] as string;

    // Letta's default page (desc) is the newest messages, shown oldest first.
    const latest = (await client.agents.messages.list(agent.id, { limit: 2 })).items;
    expect(latest.map((m) => m.id)).toEqual(ids.slice(-2));

    for (const order of ["asc", "desc"] as const) {
      const newer = (await client.agents.messages.list(agent.id, { after: cursor, order })).items;
      expect(newer.map((m) => m.id)).toEqual(ids.slice(3));
      const older = (await client.agents.messages.list(agent.id, { before: cursor, order })).items;
      expect(older.map((m) => m.id)).toEqual(ids.slice(0, 2));
    }
    // The pattern of Letta's own tests: the newest message, then everything after it.
    const [last] = (await client.agents.messages.list(agent.id, { limit: 1 })).items;
    await client.agents.messages.create(agent.id, { input: "four" });
    const since = (await client.agents.messages.list(agent.id, { after: last?.id })).items;
    expect(since[0]?.message_type).toBe("user_message");
    expect(since.at(-1)?.message_type).toBe("assistant_message");
  });
});

describe("message fields (issue #15)", () => {
  it("sends tool_calls, tool_returns, Letta's approval response fields and an otid on every message", async () => {
    const { client, agent, request, callId } = await approvalAgent();
    expect(request?.tool_calls).toEqual([request?.tool_call]);
    expect(request?.otid).toEqual(expect.any(String));

    // Letta's older single-decision form: approval_request_id names the call.
    const done = await client.agents.messages.create(agent.id, {
      messages: [{ type: "approval", approval_request_id: callId, approve: true }],
    });
    expect(done.stop_reason.stop_reason).toBe("end_turn");
    const ret = loose(done.messages).find((m) => m.message_type === "tool_return_message");
    expect(ret?.tool_returns).toEqual([
      expect.objectContaining({
        tool_call_id: callId,
        status: "success",
        tool_return: ret?.tool_return,
      }),
    ]);

    const history = loose((await client.agents.messages.list(agent.id, { order: "asc" })).items);
    for (const message of history)
      expect(message.otid, message.message_type).toEqual(expect.any(String));
    const call = history.find((m) => m.message_type === "approval_request_message");
    expect(call?.tool_calls).toEqual([
      expect.objectContaining({ tool_call_id: callId, name: "memory_insert" }),
    ]);
    const answer = history.find((m) => m.message_type === "approval_response_message");
    expect(answer).toMatchObject({ approval_request_id: callId, approve: true });
    expect(answer?.approvals).toEqual([
      expect.objectContaining({ type: "approval", tool_call_id: callId }),
    ]);
  });

  it("keeps the client's otid and puts otids and tool_calls on streamed chunks", async () => {
    server = await startTestServer({
      model: createSimModel({
        script: (request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "saved" }
            : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "x" } }] },
      }),
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const stream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "hi", otid: "my-otid-1" }],
      streaming: true,
    });
    const chunks: Loose[] = [];
    for await (const chunk of stream) chunks.push(chunk as unknown as Loose);
    const shown = chunks.filter((c) => c.id !== undefined);
    expect(shown.length).toBeGreaterThan(0);
    for (const chunk of shown) expect(chunk.otid, chunk.message_type).toEqual(expect.any(String));
    const call = shown.find((c) => c.message_type === "tool_call_message");
    expect(call?.tool_calls).toEqual([call?.tool_call]);
    const history = loose((await client.agents.messages.list(agent.id, { order: "asc" })).items);
    expect(history.find((m) => m.message_type === "user_message")?.otid).toBe("my-otid-1");
    // The stream and the history agree on each message's otid.
    for (const chunk of shown)
      expect(history.find((m) => m.id === chunk.id)?.otid).toBe(chunk.otid);
  });
  it("puts the stored message's otid on token deltas", async () => {
    server = await startTestServer({
      model: createSimModel({ script: () => ({ text: "hello there" }) }),
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const stream = await client.agents.messages.create(agent.id, {
      input: "hi",
      streaming: true,
      stream_tokens: true,
    });
    const deltas: Loose[] = [];
    for await (const chunk of stream) {
      const c = chunk as unknown as Loose;
      if (c.message_type === "assistant_message") deltas.push(c);
    }
    expect(deltas.length).toBeGreaterThan(0);
    const history = loose((await client.agents.messages.list(agent.id)).items);
    for (const delta of deltas) {
      expect(delta.otid).toEqual(expect.any(String));
      expect(history.find((m) => m.id === delta.id)?.otid).toBe(delta.otid);
    }
  });
});

describe("requests (issue #15)", () => {
  it("refuses input together with messages with 422 naming the field", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await expect(
      client.agents.messages.create(agent.id, {
        input: "a",
        messages: [{ role: "user", content: "b" }],
      }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "input" })] },
    });
  });
});

describe("agent requests (issue #15)", () => {
  it("attaches tool_ids on create, and refuses an unknown id at its index", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      include_base_tools: false,
      tool_ids: ["tool-memory_insert"],
    });
    expect(agent.tools.map((t) => t.name)).toEqual(["memory_insert"]);
    await expect(
      client.agents.create({
        agent_type: "letta_v1_agent",
        tool_ids: ["tool-memory_insert", "tool-nope"],
      }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "tool_ids.1" })] },
    });
  });

  it("collapses duplicate tool_rules on create and on update", async () => {
    server = await startTestServer();
    const client = server.client();
    const rule = { type: "requires_approval", tool_name: "memory_insert" } as const;
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      tool_rules: [rule, rule],
    });
    expect(agent.tool_rules).toEqual([rule]);
    const exit = { type: "exit_loop", tool_name: "memory_insert" } as const;
    const updated = await client.agents.update(agent.id, { tool_rules: [exit, rule, exit] });
    expect(updated.tool_rules).toEqual([exit, rule]);
  });

  it("keeps metadata exactly as sent, apart from the description", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      description: "helps",
      metadata: { a: 1, nested: { b: [1, 2] } },
    });
    expect(agent.metadata).toEqual({ a: 1, nested: { b: [1, 2] } });
    expect(agent.description).toBe("helps");
    const updated = await client.agents.update(agent.id, { metadata: { c: "x" } });
    expect(updated.metadata).toEqual({ c: "x" });
    expect(updated.description).toBe("helps");
    const renamed = await client.agents.update(agent.id, { description: "other" });
    expect(renamed.metadata).toEqual({ c: "x" });
    expect((await client.agents.retrieve(agent.id)).description).toBe("other");
  });

  it("refuses to rename a block by label, and accepts its own label", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      memory_blocks: [{ label: "human", value: "x" }],
    });
    await expect(
      client.agents.blocks.update("human", { agent_id: agent.id, label: "person" }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [expect.objectContaining({ path: "label" })] },
    });
    const same = await client.agents.blocks.update("human", {
      agent_id: agent.id,
      label: "human",
      value: "y",
    });
    expect(same).toMatchObject({ label: "human", value: "y" });
    const labels = (await client.agents.blocks.list(agent.id)).items.map((b) => b.label);
    expect(labels).toContain("human");
    expect(labels).not.toContain("person");
  });
});

describe("failures (issue #15)", () => {
  it("answers approvals for the wrong call, or with nothing pending, with 400 as Letta does", async () => {
    const { client, agent, callId } = await approvalAgent();
    await expect(
      client.agents.messages.create(agent.id, {
        messages: [
          {
            type: "approval",
            approvals: [{ type: "approval", tool_call_id: "nope", approve: true }],
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, error: { code: "INVALID_APPROVAL" } });
    await client.agents.messages.create(agent.id, {
      messages: [
        {
          type: "approval",
          approvals: [{ type: "approval", tool_call_id: callId, approve: true }],
        },
      ],
    });
    await expect(
      client.agents.messages.create(agent.id, {
        messages: [
          {
            type: "approval",
            approvals: [{ type: "approval", tool_call_id: callId, approve: true }],
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { errors: [expect.objectContaining({ path: expect.stringContaining("approvals") })] },
    });
  });

  it("answers a failed model call with Letta's status and error body", async () => {
    server = await startTestServer({
      model: createSimModel({ script: () => new ModelError("auth", "bad key for the provider") }),
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await expect(client.agents.messages.create(agent.id, { input: "hi" })).rejects.toMatchObject({
      status: 401,
      error: {
        error: {
          type: "llm_authentication",
          message: "Authentication failed with the LLM model provider.",
          detail: "bad key for the provider",
        },
      },
    });
    expect((await client.agents.retrieve(agent.id)).last_stop_reason).toBe("llm_api_error");
  });

  it("answers a cancel with nothing running with Letta's 409", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await expect(client.agents.messages.cancel(agent.id)).rejects.toMatchObject({
      status: 409,
      error: {
        code: "NO_ACTIVE_RUNS_TO_CANCEL",
        detail: `No active runs to cancel for agent ${agent.id}`,
      },
    });
  });
});

describe("agent state (issue #15)", () => {
  it("shows pending_approval when included, and last_stop_reason", async () => {
    const { client, agent, callId } = await approvalAgent();
    const plain = await client.agents.retrieve(agent.id);
    expect(plain.pending_approval ?? null).toBeNull();
    expect(plain.last_stop_reason).toBe("requires_approval");

    const withPending = await client.agents.retrieve(agent.id, {
      include: ["agent.pending_approval"],
    });
    expect(withPending.pending_approval?.message_type).toBe("approval_request_message");
    expect(withPending.pending_approval?.tool_calls).toEqual([
      expect.objectContaining({ tool_call_id: callId, name: "memory_insert" }),
    ]);

    await client.agents.messages.create(agent.id, {
      messages: [
        {
          type: "approval",
          approvals: [{ type: "approval", tool_call_id: callId, approve: true }],
        },
      ],
    });
    const after = await client.agents.retrieve(agent.id, { include: ["agent.pending_approval"] });
    expect(after.pending_approval ?? null).toBeNull();
    expect(after.last_stop_reason).toBe("end_turn");
  });
});
