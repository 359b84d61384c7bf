import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/core/clock.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const insertThenAnswer = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "saved" }
        : {
            toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }],
          },
  });

describe("approvals over the API", () => {
  it("asks for approval, refuses new messages with 409 meanwhile, and runs the tool once approved", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    const asked = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "note it" }],
    });
    expect(asked.stop_reason.stop_reason).toBe("requires_approval");
    const request = asked.messages.find((m) => m.message_type === "approval_request_message");
    const callId =
      request && "tool_call" in request
        ? (request.tool_call as { tool_call_id: string }).tool_call_id
        : "";
    expect(callId).not.toBe("");

    await expect(
      client.agents.messages.create(agent.id, { messages: [{ role: "user", content: "hello?" }] }),
    ).rejects.toMatchObject({
      status: 409,
      error: { code: "PENDING_APPROVAL", pending_request_id: callId },
    });

    const done = await client.agents.messages.create(agent.id, {
      messages: [
        {
          type: "approval",
          approvals: [{ type: "approval", tool_call_id: callId, approve: true }],
        },
      ],
    });
    expect(done.stop_reason.stop_reason).toBe("end_turn");
    expect(done.messages.map((m) => m.message_type)).toContain("tool_return_message");
    const human = (await client.agents.retrieve(agent.id)).blocks.find((b) => b.label === "human");
    expect(human?.value).toBe("likes tea");
  });
});

describe("runs that outlive their request", () => {
  it("cancels a run in progress", async () => {
    server = await startTestServer({
      model: createSimModel({ latency: { clock: systemClock, ms: 3000 } }),
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const running = client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "slow" }],
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancelled = await client.agents.messages.cancel(agent.id);
    const outcome = await running;
    expect(outcome.stop_reason.stop_reason).toBe("cancelled");
    // Letta's answer names the cancelled run (issue #15).
    const runId = outcome.messages.find((m) => m.run_id)?.run_id;
    expect(cancelled).toEqual(runId ? { [runId]: "cancelled" } : expect.any(Object));
  });

  it("completes and stores a turn whose streaming client went away", async () => {
    server = await startTestServer({
      model: createSimModel({ latency: { clock: systemClock, ms: 200 } }),
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const controller = new AbortController();
    const stream = await client.agents.messages.create(
      agent.id,
      { messages: [{ role: "user", content: "I like tea" }], streaming: true },
      { signal: controller.signal },
    );
    controller.abort();
    // The client stops reading; whether it ends quietly or throws is its business.
    await (async () => {
      for await (const _ of stream) {
        // nothing: the connection is gone
      }
    })().catch(() => undefined);
    let types: string[] = [];
    for (let i = 0; i < 50 && !types.includes("assistant_message"); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      types = [];
      for await (const m of client.agents.messages.list(agent.id, { limit: 50, order: "asc" }))
        types.push(m.message_type ?? "");
    }
    expect(types).toEqual([
      "user_message",
      "tool_call_message",
      "tool_return_message",
      "assistant_message",
    ]);
  });
});

describe("Holdfast's own routes", () => {
  it("lists agent types, shows and resumes a session, and hands it to another agent", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const types = (await (await fetch(`${server.url}/v1/agent-types`)).json()) as {
      name: string;
    }[];
    expect(types.map((t) => t.name)).toContain("letta_v1_agent");

    const from = await client.agents.create({
      agent_type: "letta_v1_agent",
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    const to = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.messages.create(from.id, {
      messages: [{ role: "user", content: "note it" }],
    });

    const resumed = await (
      await fetch(`${server.url}/v1/agents/${from.id}/resume`, { method: "POST" })
    ).json();
    const session = (resumed as { session: { session_id: string; phase: string } }).session;
    expect(session.phase).toBe("awaiting_approval");
    const shown = await fetch(`${server.url}/v1/agents/${from.id}/sessions/${session.session_id}`);
    expect(await shown.json()).toMatchObject({
      phase: "awaiting_approval",
      session_id: session.session_id,
    });

    const moved = await fetch(
      `${server.url}/v1/agents/${from.id}/sessions/${session.session_id}/transfer`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ target_agent_id: to.id }),
      },
    );
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({
      session_id: session.session_id,
      phase: "awaiting_approval",
    });
    const gone = await fetch(`${server.url}/v1/agents/${from.id}/sessions/${session.session_id}`);
    expect(gone.status).toBe(404);
    const request = (await (
      await fetch(`${server.url}/v1/agents/${to.id}/messages?limit=10`)
    ).json()) as {
      message_type: string;
    }[];
    expect(request.map((m) => m.message_type)).toContain("approval_request_message");
  });
});

describe("auth and tenancy", () => {
  it("requires a token, keeps projects apart, and leaves health open", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["alpha-token", "alpha"],
        ["beta-token", "beta"],
      ]),
    });
    expect((await fetch(`${server.url}/v1/health/`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/agents`)).status).toBe(401);
    const alpha = server.client("alpha-token");
    const beta = server.client("beta-token");
    const agent = await alpha.agents.create({ name: "alpha-agent" });
    await expect(beta.agents.retrieve(agent.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      beta.agents.messages.create(agent.id, { messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 404 });
    const listed = [];
    for await (const a of beta.agents.list()) listed.push(a.id);
    expect(listed).not.toContain(agent.id);
  });
});

describe("streaming refusals", () => {
  it("answers a stream to a missing agent with 404 and to a waiting agent with 409, not a 200 stream", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    await expect(
      client.agents.messages.create("agent-missing", {
        messages: [{ role: "user", content: "hi" }],
        streaming: true,
      }),
    ).rejects.toMatchObject({ status: 404 });
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "note it" }],
    });
    await expect(
      client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: "hi" }],
        streaming: true,
      }),
    ).rejects.toMatchObject({ status: 409 });
  });
});

describe("sub-agents on the default store", () => {
  // Regression (code review): a spawned sub-agent had no row in SQLite, so its first commit
  // failed and spawn_agent always failed on the default store.
  it("lets an orchestrator spawn a sub-agent that is a real agent of the same project", async () => {
    const model = createSimModel({
      script: (request) => {
        const last = request.messages.at(-1);
        if (!request.tools.some((t) => t.name === "spawn_agent")) return { text: "Paris" };
        if (last?.role === "user") {
          return {
            toolCalls: [
              { name: "spawn_agent", args: { agent_type: "qa_assistant", prompt: "capital?" } },
            ],
          };
        }
        return { text: `sub-agent: ${last?.role === "tool" ? last.content.split("\n")[1] : ""}` };
      },
    });
    server = await startTestServer({ model });
    const client = server.client();
    // Holdfast's own types are not in the client's AgentType union; the server accepts them.
    const body = { agent_type: "orchestrator", name: "boss" } as unknown as Parameters<
      typeof client.agents.create
    >[0];
    const agent = await client.agents.create(body);
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "ask" }],
    });
    expect(response.messages.at(-1)).toMatchObject({
      message_type: "assistant_message",
      content: "sub-agent: Paris",
    });
    const all = [];
    for await (const a of client.agents.list({ tags: ["spawned"] })) all.push(a.name);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatch(/^boss-qa_assistant-/);
  });
});
