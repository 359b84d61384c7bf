import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "./support/server-kit.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.close());

describe("Letta's official client against Holdfast: agents", () => {
  it("creates, reads, updates and deletes an agent with its memory blocks", async () => {
    const client = server.client();
    const agent = await client.agents.create({
      name: "ada-bot",
      agent_type: "memgpt_agent",
      memory_blocks: [
        { label: "human", value: "Name: unknown", limit: 200 },
        { label: "persona", value: "I am careful." },
      ],
      tags: ["demo"],
    });
    expect(agent.id).toMatch(/^agent-/);
    expect(agent.blocks.map((b) => [b.label, b.value, b.limit])).toEqual([
      ["human", "Name: unknown", 200],
      ["persona", "I am careful.", 5000],
    ]);
    expect(agent.tools.map((t) => t.name)).toContain("core_memory_append");

    const updated = await client.agents.update(agent.id, { name: "ada-2", tags: ["demo", "x"] });
    expect(updated).toMatchObject({ name: "ada-2", tags: ["demo", "x"] });
    expect((await client.agents.retrieve(agent.id)).name).toBe("ada-2");

    await client.agents.delete(agent.id);
    await expect(client.agents.retrieve(agent.id)).rejects.toMatchObject({ status: 404 });
  });

  it("refuses a PATCH that would change the type or the tools, and takes them sent back unchanged", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "memgpt_agent", name: "fixed" });
    const toolIds = agent.tools.map((tool) => tool.id);
    // Letta's client has no `agent_type` on update; other clients send whole states back.
    const patch = async (body: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/v1/agents/${agent.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const same = await patch({
      name: "fixed-2",
      agent_type: "memgpt_agent",
      tool_ids: [...toolIds].reverse(),
    });
    expect(same).toMatchObject({ status: 200, body: { name: "fixed-2" } });
    for (const [body, path] of [
      [{ agent_type: "letta_v1_agent" }, "agent_type"],
      [{ tool_ids: toolIds.slice(1) }, "tool_ids"],
      [{ tool_ids: [...toolIds, "tool-web_search"] }, "tool_ids"],
    ] as const) {
      expect(await patch({ name: "changed", ...body })).toMatchObject({
        status: 422,
        body: { errors: [{ path }] },
      });
    }
    const kept = await client.agents.retrieve(agent.id);
    expect(kept).toMatchObject({ name: "fixed-2", agent_type: "memgpt_agent" });
    expect(kept.tools.map((tool) => tool.id)).toEqual(toolIds);
  });

  it("deletes an agent's workspace with it, and no other agent's", async () => {
    const client = server.client();
    const [gone, kept] = [
      await client.agents.create({ agent_type: "memgpt_agent" }),
      await client.agents.create({ agent_type: "memgpt_agent" }),
    ];
    for (const agent of [gone, kept]) {
      await client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: "hi" }],
      });
    }
    const workspace = (id: string) => join(server.dataDir, "workspaces", id);
    writeFileSync(join(workspace(gone.id), "notes.txt"), "secret");
    await client.agents.delete(gone.id);
    expect(existsSync(workspace(gone.id))).toBe(false);
    expect(existsSync(workspace(kept.id))).toBe(true);
  });

  it("pages through every agent exactly once with for await", async () => {
    const client = server.client();
    const created = [];
    for (let i = 0; i < 5; i += 1)
      created.push((await client.agents.create({ name: `pager-${i}`, tags: ["pager"] })).id);
    const seen: string[] = [];
    for await (const agent of client.agents.list({ limit: 2, tags: ["pager"] }))
      seen.push(agent.id);
    expect([...seen].sort()).toEqual([...created].sort());
    const ascending: string[] = [];
    for await (const agent of client.agents.list({ limit: 2, order: "asc", tags: ["pager"] }))
      ascending.push(agent.id);
    expect(ascending).toEqual(created);
  });

  it("refuses an unknown agent type or model with a 422 that says what exists", async () => {
    const client = server.client();
    await expect(client.agents.create({ agent_type: "sleeptime_agent" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "agent_type", message: expect.stringContaining("memgpt_agent") }] },
    });
    await expect(client.agents.create({ model: "nosuch/model" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "model" }] },
    });
    await expect(client.agents.create({ model: "openai/gpt-4.1-mini" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "model", message: expect.stringContaining("OPENAI_API_KEY") }] },
    });
  });
});

describe("Letta's official client against Holdfast: messages", () => {
  it("answers a message with Letta's response: messages, stop reason, usage", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "memgpt_agent" });
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "My name is Ada" }],
    });
    expect(response.messages.map((m) => m.message_type)).toEqual([
      "tool_call_message",
      "tool_return_message",
      "assistant_message",
    ]);
    expect(response.stop_reason).toEqual({ message_type: "stop_reason", stop_reason: "end_turn" });
    expect(response.usage).toMatchObject({ message_type: "usage_statistics", step_count: 2 });
    const blocks = await client.agents.retrieve(agent.id);
    expect(blocks.blocks.find((b) => b.label === "human")?.value).toBe("My name is Ada");

    const listed = [];
    for await (const m of client.agents.messages.list(agent.id, { limit: 2, order: "asc" }))
      listed.push(m.message_type);
    expect(listed).toEqual([
      "user_message",
      "tool_call_message",
      "tool_return_message",
      "assistant_message",
    ]);
  });

  it("streams steps, and tokens with deltas that repeat their message's id, ending in stop and usage", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const steps = [];
    const stream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I like tea" }],
      streaming: true,
    });
    for await (const chunk of stream) steps.push(chunk.message_type);
    expect(steps).toEqual([
      "tool_call_message",
      "tool_return_message",
      "assistant_message",
      "stop_reason",
      "usage_statistics",
    ]);

    const tokens: { message_type: string; id?: string; content?: unknown }[] = [];
    const tokenStream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "hello there my friend" }],
      streaming: true,
      stream_tokens: true,
    });
    for await (const chunk of tokenStream) tokens.push(chunk as (typeof tokens)[number]);
    const deltas = tokens.filter((t) => t.message_type === "assistant_message");
    expect(deltas.length).toBeGreaterThan(1);
    expect(new Set(deltas.map((d) => d.id)).size).toBe(1);
    expect(deltas.map((d) => d.content).join("")).toBe("You said: hello there my friend");
    expect(tokens.slice(-2).map((t) => t.message_type)).toEqual([
      "stop_reason",
      "usage_statistics",
    ]);
  });

  it("does not run a retried message (same otid) twice", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const send = () =>
      client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: "once only", otid: "otid-42" }],
      });
    const first = await send();
    const second = await send();
    expect(second.messages.map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    const users = [];
    for await (const m of client.agents.messages.list(agent.id, { limit: 50 })) {
      if (m.message_type === "user_message") users.push(m);
    }
    expect(users).toHaveLength(1);
    // The same otid with another message is no retry: a 409, and nothing is dropped silently.
    await expect(
      client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: "something else", otid: "otid-42" }],
      }),
    ).rejects.toMatchObject({ status: 409 });
    // Nothing calls back: said at once, not dropped.
    await expect(
      client.agents.messages.createAsync(agent.id, {
        messages: [{ role: "user", content: "later" }],
        callback_url: "https://example.com/hook",
      }),
    ).rejects.toMatchObject({ status: 422, error: { errors: [{ path: "callback_url" }] } });
  });

  it("queues concurrent messages to one agent and answers each, in order", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const texts = ["one", "two", "three", "four"];
    const responses = await Promise.all(
      texts.map((content) =>
        client.agents.messages.create(agent.id, { messages: [{ role: "user", content }] }),
      ),
    );
    expect(responses.every((r) => r.stop_reason.stop_reason === "end_turn")).toBe(true);
    const users = [];
    for await (const m of client.agents.messages.list(agent.id, { limit: 50, order: "asc" })) {
      if (m.message_type === "user_message") users.push(m.content);
    }
    expect(users).toEqual(texts);
  });
});

describe("Letta's message options", () => {
  it("returns only the requested message types and stops at max_steps", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const only = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I like tea" }],
      include_return_message_types: ["assistant_message"],
    });
    expect(only.messages.map((m) => m.message_type)).toEqual(["assistant_message"]);
    const capped = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I like coffee" }],
      max_steps: 1,
    });
    expect(capped.stop_reason.stop_reason).toBe("max_steps");
    expect(capped.usage.step_count).toBe(1);
  });
});

describe("Letta's message lists count what they return", () => {
  it("fills a page to its limit although send_message's returns show as nothing, and pages them all", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "memgpt_agent" });
    for (const text of ["first", "second", "third"]) {
      await client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: text }],
      });
    }
    const all = (await client.agents.messages.list(agent.id, { limit: 1000, order: "asc" })).items;
    const ids = all.map((m) => m.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    // The newest stored row is send_message's hidden return: a page of one is the reply.
    const newest = (await client.agents.messages.list(agent.id, { limit: 1, order: "desc" })).items;
    expect(newest.map((m) => m.id)).toEqual([ids.at(-1)]);
    for (const order of ["asc", "desc"] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages <= ids.length; pages++) {
        const cursors =
          cursor === undefined ? {} : order === "asc" ? { after: cursor } : { before: cursor };
        const page = (await client.agents.messages.list(agent.id, { limit: 2, order, ...cursors }))
          .items;
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(2);
        const pageIds = page.map((m) => m.id);
        seen.push(...(order === "asc" ? pageIds : [...pageIds].reverse()));
        cursor = order === "asc" ? pageIds.at(-1) : pageIds[0];
      }
      expect(order === "asc" ? seen : [...seen].reverse(), order).toEqual(ids);
    }
    const users = await client.messages.list({
      limit: 2,
      include_return_message_types: ["user_message"],
    });
    expect(users.map((m) => m.message_type)).toEqual(["user_message", "user_message"]);
  });
});
