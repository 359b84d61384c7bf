import Letta from "@letta-ai/letta-client";
import { afterEach, describe, expect, it } from "vitest";
import { builtinConfig } from "../src/config/config-file.js";
import { createSimModel, type SimModelOptions } from "../src/llm/sim/sim-model.js";
import { createApp } from "../src/server/app.js";
import { listen, type RunningServer } from "../src/server/serve.js";
import { serviceKit } from "./support/service-kit.js";

/** The app over an in-memory store and the sim model, with every service. */
function appKit(script?: SimModelOptions["script"]) {
  const { runtime, services } = serviceKit({ model: createSimModel(script ? { script } : {}) });
  const app = createApp({ config: builtinConfig(), version: "t", services });
  const send = (method: string, path: string, body?: unknown) =>
    app.request(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
  const newAgent = async (agent_type = "letta_v1_agent") =>
    ((await (await send("POST", "/v1/agents/", { agent_type })).json()) as { id: string }).id;
  return { app, send, newAgent, runtime };
}

type Tool = { id: string; name: string; default_requires_approval: boolean };
type ErrorBody = { code: string; message: string; errors?: { path: string }[] };

describe("tool routes", () => {
  it("lists the catalogue with and without the trailing slash, following after cursors", async () => {
    const { send } = appKit();
    const all = (await (await send("GET", "/v1/tools/?limit=1000")).json()) as Tool[];
    expect(all.map((t) => t.id)).toContain("tool-shell");
    const first = (await (await send("GET", "/v1/tools?limit=2")).json()) as Tool[];
    const next = (await (
      await send("GET", `/v1/tools?limit=2&after=${first[1]?.id}`)
    ).json()) as Tool[];
    expect([...first, ...next].map((t) => t.id)).toEqual(all.slice(0, 4).map((t) => t.id));
    const named = (await (await send("GET", "/v1/tools?name=web_fetch")).json()) as Tool[];
    expect(named.map((t) => t.name)).toEqual(["web_fetch"]);
  });

  it("shows one tool, and answers an unknown id with a JSON 404", async () => {
    const { send } = appKit();
    expect(await (await send("GET", "/v1/tools/tool-memory_insert")).json()).toMatchObject({
      id: "tool-memory_insert",
      name: "memory_insert",
      json_schema: { name: "memory_insert" },
    });
    const missing = await send("GET", "/v1/tools/tool-ghost");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses to create, upsert, change or delete tools with a clear 422", async () => {
    const { send } = appKit();
    const code = { source_code: "def f(): pass" };
    for (const [method, path, body] of [
      ["POST", "/v1/tools/", code],
      ["PUT", "/v1/tools/", code],
      ["PATCH", "/v1/tools/tool-shell", { description: "x" }],
      ["DELETE", "/v1/tools/tool-shell", undefined],
    ] as const) {
      const response = await send(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(422);
      expect(((await response.json()) as ErrorBody).message).toContain(
        "custom tools with source code are not supported by Holdfast",
      );
    }
    expect((await send("DELETE", "/v1/tools/tool-ghost")).status).toBe(404);
  });

  it("names the field of a malformed tool body before refusing it", async () => {
    const { send } = appKit();
    const response = await send("POST", "/v1/tools/", { source_code: 42, tags: "x" });
    expect(response.status).toBe(422);
    const paths = ((await response.json()) as ErrorBody).errors?.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["source_code", "tags"]));
  });

  it("attaches and detaches tools of an agent, refusing one its type does not allow", async () => {
    const { send, newAgent } = appKit();
    const id = await newAgent();
    const attached = await send("PATCH", `/v1/agents/${id}/tools/attach/tool-web_fetch`);
    expect(attached.status).toBe(200);
    expect(((await attached.json()) as { tools: Tool[] }).tools.map((t) => t.name)).toContain(
      "web_fetch",
    );
    // Without a search provider, web_search cannot run here, and attaching it says why.
    const noSearch = await send("PATCH", `/v1/agents/${id}/tools/attach/tool-web_search`);
    expect(noSearch.status).toBe(422);
    expect(((await noSearch.json()) as ErrorBody).message).toMatch(
      /'web_search' cannot be attached: no search provider configured/,
    );

    const refused = await send("PATCH", `/v1/agents/${id}/tools/attach/tool-shell`);
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as ErrorBody;
    expect(body.message).toMatch(/'shell' cannot be attached.*beyond access 'constrained'/);
    expect(body.errors?.[0]?.path).toBe("tool_id");
    expect((await send("PATCH", `/v1/agents/${id}/tools/attach/tool-ghost`)).status).toBe(404);

    await send("PATCH", `/v1/agents/${id}/tools/detach/tool-memory_replace`);
    const listed = (await (await send("GET", `/v1/agents/${id}/tools`)).json()) as Tool[];
    expect(listed.map((t) => t.name).sort()).toEqual([
      "conversation_search",
      "memory_insert",
      "web_fetch",
    ]);
  });

  it("sets approval from either body field or the old query parameter", async () => {
    const { send, newAgent } = appKit();
    const id = await newAgent();
    const path = `/v1/agents/${id}/tools/approval/memory_insert`;
    const flag = async () =>
      ((await (await send("GET", `/v1/agents/${id}/tools`)).json()) as Tool[]).find(
        (t) => t.name === "memory_insert",
      )?.default_requires_approval;
    expect((await send("PATCH", path, { body_requires_approval: true })).status).toBe(200);
    expect(await flag()).toBe(true);
    await send("PATCH", path, { requires_approval: false });
    expect(await flag()).toBe(false);
    await send("PATCH", `${path}?requires_approval=true`);
    expect(await flag()).toBe(true);
    const missing = await send("PATCH", path, {});
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as ErrorBody).errors?.[0]?.path).toBe("body_requires_approval");
  });
});

describe("tools through Letta's official client", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const insertThenReply: SimModelOptions["script"] = (request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "noted" }
      : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }] };

  it("lists, attaches, detaches and makes a tool need approval that a human then gives", async () => {
    const kit = appKit(insertThenReply);
    server = await listen(kit.app, "127.0.0.1", 0);
    const client = new Letta({ baseURL: server.url, maxRetries: 0 });

    const catalogue: string[] = [];
    for await (const tool of client.tools.list({ limit: 5 })) catalogue.push(tool.id);
    expect(catalogue).toContain("tool-memory_insert");
    expect(new Set(catalogue).size).toBe(catalogue.length);
    expect((await client.tools.retrieve("tool-shell")).name).toBe("shell");

    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const attached = await client.agents.tools.attach("tool-web_fetch", { agent_id: agent.id });
    expect(attached?.tools.map((t) => t.name)).toContain("web_fetch");
    const detached = await client.agents.tools.detach("tool-web_fetch", { agent_id: agent.id });
    expect(detached?.tools.map((t) => t.name)).not.toContain("web_fetch");
    await expect(
      client.agents.tools.attach("tool-shell", { agent_id: agent.id }),
    ).rejects.toMatchObject({ status: 422 });

    const approved = await client.agents.tools.updateApproval("memory_insert", {
      agent_id: agent.id,
      body_requires_approval: true,
    });
    const insert = approved?.tools.find((t) => t.name === "memory_insert");
    expect(insert?.default_requires_approval).toBe(true);
    const offered: string[] = [];
    for await (const tool of client.agents.tools.list(agent.id)) offered.push(tool.name ?? "");
    expect(offered.sort()).toEqual(["conversation_search", "memory_insert", "memory_replace"]);

    const asked = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I like tea" }],
    });
    expect(asked.stop_reason.stop_reason).toBe("requires_approval");
    const request = asked.messages.find((m) => m.message_type === "approval_request_message");
    const toolCall = request && "tool_call" in request ? request.tool_call : undefined;
    const callId = (toolCall as { tool_call_id?: string } | undefined)?.tool_call_id ?? "";
    expect(callId).not.toBe("");

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

  // Issue #16, point 8: turning off approval the type requires answered 200 and was ignored.
  it("answers 422 naming the policy when approval the type requires is turned off", async () => {
    const kit = appKit();
    server = await listen(kit.app, "127.0.0.1", 0);
    const client = new Letta({ baseURL: server.url, maxRetries: 0 });
    // Holdfast's own types are not in the client's AgentType union; the server accepts them.
    const body = { agent_type: "developer" } as unknown as Parameters<
      typeof client.agents.create
    >[0];
    const agent = await client.agents.create(body);
    const message =
      "agent type 'developer' requires approval for 'shell' (tools.approval: per_action); an agent may not loosen it";
    await expect(
      client.agents.tools.updateApproval("shell", {
        agent_id: agent.id,
        body_requires_approval: false,
      }),
    ).rejects.toMatchObject({
      status: 422,
      error: { code: "VALIDATION_ERROR", message, errors: [{ path: "body_requires_approval" }] },
    });
    const shell = async () => {
      for await (const tool of client.agents.tools.list(agent.id))
        if (tool.name === "shell") return tool.default_requires_approval;
      return undefined;
    };
    expect(await shell()).toBe(true);
    const on = await client.agents.tools.updateApproval("shell", {
      agent_id: agent.id,
      body_requires_approval: true,
    });
    expect(on?.tools.find((t) => t.name === "shell")?.default_requires_approval).toBe(true);
  });
});
