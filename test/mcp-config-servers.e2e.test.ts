import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkConfig, type HoldfastConfig } from "../src/config/config-file.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { assemble } from "../src/server/assemble.js";
import { EVERYTHING_SERVER } from "./support/mcp-servers.js";
import { startTestServer } from "./support/server-kit.js";

const SECRET = "config-secret-0123456789";

function configWithServer(): HoldfastConfig {
  const result = checkConfig({
    mcp_servers: {
      everything: {
        command: process.execPath,
        args: [EVERYTHING_SERVER, "stdio"],
        env: { EVERYTHING_TOKEN: SECRET },
      },
    },
    types: {
      helper: {
        extends: "letta_v1_agent",
        description: "a letta agent with the everything server's tools",
        tools: { packs: ["letta_memory", "mcp:everything"] },
      },
    },
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

const echoOnce = createSimModel({
  script: (request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "done" }
      : { toolCalls: [{ name: "echo", args: { message: "from config" } }] },
});

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("MCP servers of the config file", () => {
  it("gives a type that names the pack mcp:NAME the server's tools, within its access level", async () => {
    const server = await startTestServer({ config: configWithServer(), model: echoOnce });
    cleanup = server.close;
    const response = await fetch(`${server.url}/v1/agent-types/helper`);
    const shown = (await response.json()) as {
      capabilities: { offered: { name: string }[]; withheld: { name: string; reason: string }[] };
    };
    const offered = shown.capabilities.offered.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["echo", "get-sum", "memory_insert"]));
    // Tools that say nothing of their effects count as reaching the open world: beyond 'constrained'.
    const withheld = shown.capabilities.withheld.find(
      (tool) => tool.name === "gzip-file-as-resource",
    );
    expect(withheld?.reason).toBe("risk 'network' is beyond access 'constrained'");

    const client = server.client();
    const agent = await client.agents.create({ agent_type: "helper" } as never);
    const reply = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "echo something" }],
    });
    const returned = reply.messages.find((m) => m.message_type === "tool_return_message");
    expect(returned).toMatchObject({ status: "success", tool_return: "Echo: from config" });

    const [listed] = await client.mcpServers.list();
    expect(listed).toMatchObject({ server_name: "everything", origin: "config" });
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    await expect(client.mcpServers.delete(listed?.id ?? "")).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/declared in the config file/),
    });
  });
});

describe("MCP servers added through the API", () => {
  it("are stored and reconnected when the server starts again, under the same id", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "holdfast-mcp-restart-"));
    const open = () =>
      assemble({
        config: configWithServer(),
        dataDir,
        defaultModel: "sim/demo",
        env: {},
        sandbox: { ok: false, reason: "not needed here" },
      });
    const first = await open();
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    const servers = first.services.mcpServers;
    if (!servers) throw new Error("no MCP service");
    const added = await servers.create("again", {
      mcp_server_type: "stdio",
      command: process.execPath,
      args: [EVERYTHING_SERVER, "stdio"],
      tool_prefix: "again_",
    });
    const renamed = await servers.update(added.id, {
      server_name: "later",
      config: { mcp_server_type: "stdio", timeout_ms: 5_000 },
    });
    expect(renamed).toMatchObject({
      id: added.id,
      server_name: "later",
      timeout_ms: 5_000,
      status: "connected",
    });
    await first.close();

    const second = await open();
    const back = second.services.mcpServers?.get(added.id);
    expect(back).toMatchObject({
      server_name: "later",
      origin: "api",
      status: "connected",
      tool_prefix: "again_",
    });
    expect(second.config.catalogue.packs.get("mcp:later")).toContain("again_echo");
    await second.close();
  });
});
