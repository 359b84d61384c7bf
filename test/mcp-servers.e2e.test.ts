import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { STDIO_FROM_API_OFF } from "../src/service/mcp-server-service.js";
import {
  EVERYTHING_SERVER,
  type HttpMcpServer,
  startEverythingOverHttp,
  waitFor,
} from "./support/mcp-servers.js";
import { ON_CLUSTER, startTestServer } from "./support/server-kit.js";

const STDIO_SECRET = "stdio-secret-0123456789";
const HTTP_SECRET = "http-secret-9876543210";

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
const remotes: HttpMcpServer[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(remotes.splice(0).map((remote) => remote.stop()));
});

/** Calls of the sim model, by the user's words: `call TOOL {json args}`; then says what came back. */
const requests: ModelRequest[] = [];
const model = createSimModel({
  script: (request) => {
    requests.push(request);
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.content}` };
    const said = last?.role === "user" ? last.content : "";
    const match = /^call (\S+) (.*)$/.exec(said);
    if (!match) return { text: "nothing to do" };
    return { toolCalls: [{ name: match[1] ?? "", args: JSON.parse(match[2] ?? "{}") }] };
  },
});

async function start() {
  requests.length = 0;
  server = await startTestServer({ model });
  return server.client();
}

type Client = Awaited<ReturnType<typeof start>>;

/** The names of the tools the agent is offered, over every page. */
async function agentTools(client: Client, agentId: string): Promise<string[]> {
  const names: string[] = [];
  for await (const tool of client.agents.tools.list(agentId)) names.push(tool.name ?? "");
  return names;
}

/** Holdfast's connection state, which it adds to Letta's view of a server. */
const statusOf = (view: unknown) => (view as { status: string }).status;

/** Sends `text`; returns the tool's return message (status and text). */
async function toolTurn(client: Client, agentId: string, text: string) {
  const response = await client.agents.messages.create(agentId, {
    messages: [{ role: "user", content: text }],
  });
  const found = response.messages.find((m) => m.message_type === "tool_return_message") as
    | { status: string; tool_return: string }
    | undefined;
  return { status: found?.status, output: found?.tool_return ?? "" };
}

const stdioConfig = {
  mcp_server_type: "stdio" as const,
  command: process.execPath,
  args: [EVERYTHING_SERVER, "stdio"],
  env: { EVERYTHING_TOKEN: STDIO_SECRET },
};

describe("MCP servers through Letta's routes", () => {
  it("adds a stdio server, lists its tools, attaches one, and a turn calls it for its real result", async () => {
    const client = await start();
    const added = await client.mcpServers.create({
      server_name: "everything",
      config: stdioConfig,
    });
    expect(added).toMatchObject({
      server_name: "everything",
      mcp_server_type: "stdio",
      status: "connected",
    });
    expect(JSON.stringify(added)).not.toContain(STDIO_SECRET);
    expect((added as { env: unknown }).env).toEqual({ EVERYTHING_TOKEN: "<redacted>" });
    expect(JSON.stringify(await client.mcpServers.list())).not.toContain(STDIO_SECRET);

    const tools = await client.mcpServers.tools.list(added.id ?? "");
    const echo = tools.find((tool) => tool.name === "echo");
    expect(echo).toMatchObject({ id: "tool-echo", tool_type: "external_mcp" });

    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const attached = await client.agents.tools.attach("tool-echo", { agent_id: agent.id });
    expect(attached?.tools.map((tool) => tool.name)).toContain("echo");
    await client.agents.tools.attach("tool-get-sum", { agent_id: agent.id });

    expect(await toolTurn(client, agent.id, 'call echo {"message":"hello mcp"}')).toEqual({
      status: "success",
      output: "Echo: hello mcp",
    });
    const offered = requests.at(-1)?.tools.find((tool) => tool.name === "echo");
    expect(offered?.parameters).toMatchObject({ properties: { message: { type: "string" } } });

    const bad = await toolTurn(client, agent.id, 'call get-sum {"a":"two"}');
    expect(bad.status).toBe("error");
    expect(bad.output).toMatch(/invalid arguments: a: .*; b: /);
  });

  it("refuses a tool beyond the agent type's ceiling, with the reason", async () => {
    const client = await start();
    await client.mcpServers.create({
      server_name: "risky",
      config: { ...stdioConfig, risk: "exec", tool_prefix: "risky_" } as typeof stdioConfig,
    });
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await expect(
      client.agents.tools.attach("tool-risky_echo", { agent_id: agent.id }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/risk 'exec' is beyond access 'constrained'/),
    });
  });

  it("answers bad configs with 4xx and field paths", async () => {
    const client = await start();
    const refused = (config: unknown, name = "x") =>
      client.mcpServers.create({ server_name: name, config: config as typeof stdioConfig });
    await expect(refused({ mcp_server_type: "stdio", args: [] })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "config.command", message: expect.stringContaining("either") }] },
    });
    await expect(
      refused({ mcp_server_type: "sse", server_url: "http://127.0.0.1:1/sse" }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "config.mcp_server_type" }] },
    });
    await expect(refused({ mcp_server_type: "carrier-pigeon" })).rejects.toMatchObject({
      status: 422,
    });
    await expect(refused(stdioConfig, "Not A Name")).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "server_name" }] },
    });
    await client.mcpServers.create({ server_name: "dup", config: stdioConfig });
    await expect(refused(stdioConfig, "dup")).rejects.toMatchObject({ status: 409 });
    await expect(client.mcpServers.retrieve("mcp_server-nope")).rejects.toMatchObject({
      status: 404,
    });
  });

  it("refuses stdio servers through the API on a server with bearer tokens, unless the config allows them", async () => {
    const tokens = new Map([["t-1", "project-a"]]);
    server = await startTestServer({ model, tokens });
    const guarded = server.client("t-1");
    await expect(
      guarded.mcpServers.create({ server_name: "local", config: stdioConfig }),
    ).rejects.toMatchObject({
      status: 422,
      error: {
        errors: [{ path: "config.mcp_server_type", message: STDIO_FROM_API_OFF }],
      },
    });
    expect(await guarded.mcpServers.list()).toEqual([]);
    await server.close();

    const checked = checkConfig({ tools: { mcp: { api_stdio: "allow" } } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    server = await startTestServer({ model, tokens, config: checked.config });
    const allowed = await server
      .client("t-1")
      .mcpServers.create({ server_name: "local", config: stdioConfig });
    expect(statusOf(allowed)).toBe("connected");
  });

  it("turns a hanging call into a timeout error, and a dead HTTP server into a tool error until it is back", async () => {
    const remote = await startEverythingOverHttp();
    remotes.push(remote);
    const client = await start();
    const added = await client.mcpServers.create({
      server_name: "remote",
      config: {
        mcp_server_type: "streamable_http",
        server_url: remote.url,
        auth_token: `Bearer ${HTTP_SECRET}`,
        timeout_ms: 1_000,
        risk: "read",
      } as never,
    });
    expect(statusOf(added)).toBe("connected");
    expect(JSON.stringify(added)).not.toContain(HTTP_SECRET);
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.tools.attach("tool-echo", { agent_id: agent.id });
    await client.agents.tools.attach("tool-trigger-long-running-operation", {
      agent_id: agent.id,
    });
    const slow = await toolTurn(
      client,
      agent.id,
      'call trigger-long-running-operation {"duration":20,"steps":2}',
    );
    expect(slow).toMatchObject({
      status: "error",
      output: expect.stringMatching(/timed out after 1000 ms/),
    });
    expect((await toolTurn(client, agent.id, 'call echo {"message":"one"}')).output).toBe(
      "Echo: one",
    );

    await remote.stop();
    const down = await toolTurn(client, agent.id, 'call echo {"message":"two"}');
    expect(down.status).toBe("error");
    expect(down.output).toMatch(/^tool .echo. failed: MCP server .remote.: /);
    expect(down.output).not.toContain(HTTP_SECRET);

    remotes.push(await startEverythingOverHttp(remote.port));
    await waitFor(
      async () => statusOf(await client.mcpServers.retrieve(added.id ?? "")) === "connected",
      40_000,
    );
    const three = () => toolTurn(client, agent.id, 'call echo {"message":"three"}');
    // On the Restate engine the worker keeps its own connection, back on its own schedule.
    if (ON_CLUSTER) await waitFor(async () => (await three()).status === "success", 40_000);
    else expect(await three()).toEqual({ status: "success", output: "Echo: three" });
  }, 90_000);

  it("changes, then removes, a server's tools from the agent's next turn", async () => {
    const client = await start();
    const added = await client.mcpServers.create({
      server_name: "everything",
      config: stdioConfig,
    });
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.tools.attach("tool-echo", { agent_id: agent.id });
    await toolTurn(client, agent.id, 'call echo {"message":"x"}');
    expect(requests.at(-1)?.tools.map((tool) => tool.name)).toContain("echo");

    // Letta's update: null keeps a field; Holdfast's tool_prefix renames the server's tools.
    const changed = await client.mcpServers.update(added.id ?? "", {
      config: { mcp_server_type: "stdio", command: null, args: null, tool_prefix: "ev_" } as never,
    });
    expect(changed).toMatchObject({ id: added.id, command: process.execPath });
    expect((changed as unknown as { tool_names: string[] }).tool_names).toContain("ev_echo");
    const renamed = await toolTurn(client, agent.id, 'call echo {"message":"x"}');
    expect(renamed.status).toBe("error");
    expect(requests.at(-1)?.tools.map((tool) => tool.name)).not.toContain("echo");
    await client.agents.tools.attach("tool-ev_echo", { agent_id: agent.id });
    expect(await toolTurn(client, agent.id, 'call ev_echo {"message":"z"}')).toEqual({
      status: "success",
      output: "Echo: z",
    });

    await client.mcpServers.delete(added.id ?? "");
    expect(await client.mcpServers.list()).toEqual([]);
    const after = await toolTurn(client, agent.id, 'call echo {"message":"y"}');
    expect(after.status).toBe("error");
    expect(requests.at(-1)?.tools.map((tool) => tool.name)).not.toContain("ev_echo");
    expect(await agentTools(client, agent.id)).not.toContain("echo");
  });
});
