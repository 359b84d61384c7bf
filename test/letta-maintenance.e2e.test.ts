import Letta from "@letta-ai/letta-client";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, "Agent maintenance" and the server-wide routes: the context window, resetting
// messages, tags, models, tool search and the refusals, through Letta's official client.

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model that answers "ok" and keeps every request it was sent. */
function recordingModel() {
  const seen: ModelRequest[] = [];
  const model = createSimModel({
    script: (request) => {
      seen.push(request);
      return { text: "ok" };
    },
  });
  return { model, seen };
}

interface Overview {
  context_window_size_max: number;
  context_window_size_current: number;
  num_messages: number;
  num_recall_memory: number;
  num_archival_memory: number;
  num_tokens_system: number;
  num_tokens_core_memory: number;
  num_tokens_functions_definitions: number;
  num_tokens_summary_memory: number;
  num_tokens_messages: number;
  system_prompt: string;
  core_memory: string;
  functions_definitions: { function: { name: string } }[];
  messages: { role: string; content: string }[];
}

const contextOf = (client: Letta, agentId: string) =>
  client.get<Overview>(`/v1/agents/${agentId}/context`);

describe("the context window (issue #15)", () => {
  it("shows the parts of exactly the request the loop sends next", async () => {
    const { model, seen } = recordingModel();
    server = await startTestServer({ model });
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      memory_blocks: [{ label: "human", value: "Name: Grace" }],
    });
    await client.agents.passages.create(agent.id, { text: "a stored fact" });
    await client.agents.messages.create(agent.id, { input: "first" });
    const context = await contextOf(client, agent.id);
    await client.agents.messages.create(agent.id, { input: "second" });
    const next = seen.at(-1) as ModelRequest;

    expect(context.context_window_size_max).toBe(agent.llm_config.context_window);
    expect(context.system_prompt + context.core_memory).toBe(next.system);
    expect(context.core_memory).toContain("Name: Grace");
    expect(context.functions_definitions.map((f) => f.function.name)).toEqual(
      next.tools.map((t) => t.name),
    );
    // The next request is the context plus the new user message.
    expect(context.messages.map((m) => [m.role, m.content])).toEqual(
      next.messages.slice(0, -1).map((m) => [m.role, m.content]),
    );
    expect(context.num_messages).toBe(2);
    expect(context.num_recall_memory).toBe(2);
    expect(context.num_archival_memory).toBe(1);
    expect(context.context_window_size_current).toBe(
      context.num_tokens_system +
        context.num_tokens_core_memory +
        context.num_tokens_functions_definitions +
        context.num_tokens_summary_memory +
        context.num_tokens_messages,
    );
    expect(context.num_tokens_functions_definitions).toBeGreaterThan(0);
  });

  it("answers 404 for an agent of no project", async () => {
    server = await startTestServer();
    await expect(contextOf(server.client(), "agent-missing")).rejects.toBeInstanceOf(
      Letta.NotFoundError,
    );
  });
});

describe("resetting messages (issue #15)", () => {
  it("starts the model's context afresh and keeps the history stored, answering null as Letta does", async () => {
    const { model, seen } = recordingModel();
    server = await startTestServer({ model });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.messages.create(agent.id, { input: "before the reset" });
    const kept = (await client.agents.messages.list(agent.id, { limit: 100 })).items;

    expect(await client.agents.messages.reset(agent.id, {})).toBeNull();
    expect((await contextOf(client, agent.id)).num_messages).toBe(0);
    await client.agents.messages.create(agent.id, { input: "after the reset" });
    const next = seen.at(-1) as ModelRequest;
    expect(next.messages.map((m) => m.content)).toEqual(["after the reset"]);

    const all = (await client.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;
    expect(all.slice(0, kept.length).map((m) => m.id)).toEqual(kept.map((m) => m.id));
    expect(all).toHaveLength(kept.length + 2);
  });

  it("refuses with 409 while a run waits, and leaves the context whole", async () => {
    const model = createSimModel({
      script: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "saved" }
          : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "x" } }] },
    });
    server = await startTestServer({ model });
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    const asked = await client.agents.messages.create(agent.id, { input: "note it" });
    expect(asked.stop_reason.stop_reason).toBe("requires_approval");
    const before = (await contextOf(client, agent.id)).num_messages;
    await expect(client.agents.messages.reset(agent.id, {})).rejects.toBeInstanceOf(
      Letta.ConflictError,
    );
    expect((await contextOf(client, agent.id)).num_messages).toBe(before);
  });

  it("refuses add_default_initial_messages, which Holdfast agents do not have", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const error = await client.agents.messages
      .reset(agent.id, { add_default_initial_messages: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Letta.UnprocessableEntityError);
    expect(JSON.stringify((error as { error: unknown }).error)).toContain(
      "add_default_initial_messages",
    );
  });
});

describe("tags, models and tool search (issue #15)", () => {
  it("lists the project's agent tags alphabetically with Letta's filters and cursors", async () => {
    server = await startTestServer();
    const client = server.client();
    await client.agents.create({ agent_type: "letta_v1_agent", tags: ["beta", "alpha"] });
    await client.agents.create({ agent_type: "letta_v1_agent", tags: ["gamma", "beta"] });
    expect(await client.tags.list()).toEqual(["alpha", "beta", "gamma"]);
    expect(await client.tags.list({ order: "desc", limit: 2 })).toEqual(["gamma", "beta"]);
    expect(await client.tags.list({ after: "alpha" })).toEqual(["beta", "gamma"]);
    expect(await client.tags.list({ before: "gamma" })).toEqual(["alpha", "beta"]);
    expect(await client.tags.list({ name: "AM" })).toEqual(["gamma"]);
  });

  it("keeps another project's tags out of the list", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["key-a", "a"],
        ["key-b", "b"],
      ]),
    });
    await server.client("key-a").agents.create({ agent_type: "letta_v1_agent", tags: ["mine"] });
    expect(await server.client("key-b").tags.list()).toEqual([]);
  });

  it("lists the models this server can use: sim without keys, nothing from unkeyed providers", async () => {
    server = await startTestServer();
    const client = server.client();
    const models = await client.models.list();
    const sim = models.find((m) => m.handle === "sim/demo");
    expect(sim).toMatchObject({ name: "demo", provider_name: "sim", model_type: "llm" });
    expect(sim?.context_window).toBeGreaterThan(0);
    expect(await client.models.list({ provider_name: "openai" })).toEqual([]);
  });

  it("lists a configured provider's model named in config", async () => {
    server = await startTestServer({
      env: { OPENAI_API_KEY: "sk-test" },
      defaultModel: "openai/gpt-4o-mini",
    });
    const models = await server.client().models.list({ provider_type: "openai" });
    expect(models.map((m) => m.handle)).toEqual(["openai/gpt-4o-mini"]);
  });

  it("ranks tools by full text and refuses vector search, which needs tool embeddings", async () => {
    server = await startTestServer();
    const client = server.client();
    const [first] = await client.tools.search({ query: "search conversation", limit: 3 });
    expect(first?.tool.name).toBe("conversation_search");
    await expect(client.tools.search({ query: "x", search_mode: "vector" })).rejects.toBeInstanceOf(
      Letta.UnprocessableEntityError,
    );
  });
});

describe("refusals name the alternative (issue #15)", () => {
  it("refuses tools from Python source, pointing at MCP servers and client tools", async () => {
    server = await startTestServer();
    const error = await server
      .client()
      .tools.create({ source_code: "def f():\n    return 1\n" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Letta.UnprocessableEntityError);
    const text = JSON.stringify((error as { error: unknown }).error);
    expect(text).toContain('"path":"source_code"');
    expect(text).toMatch(/MCP server/);
    expect(text).toMatch(/client tool/);
  });

  it("refuses templates, pointing at agent types and chains", async () => {
    server = await startTestServer();
    const error = await server
      .client()
      .templates.create({ type: "agent", agent_id: "agent-x" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Letta.UnprocessableEntityError);
    expect(JSON.stringify((error as { error: unknown }).error)).toMatch(/agent type.*chain/);
  });
});
