import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER } from "./support/mcp-servers.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15: Letta's direct MCP tool run and refresh, through the official client.

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const stdioConfig = {
  mcp_server_type: "stdio" as const,
  command: process.execPath,
  args: [EVERYTHING_SERVER, "stdio"],
};

describe("running an MCP server's tool directly", () => {
  it("calls the tool for its real result, checks arguments, and refreshes the tool list", async () => {
    server = await startTestServer();
    const client = server.client();
    const added = await client.mcpServers.create({
      server_name: "everything",
      config: stdioConfig,
    });
    const id = added.id ?? "";

    const echoed = await client.mcpServers.tools.run("tool-echo", {
      mcp_server_id: id,
      args: { message: "hello directly" },
    });
    expect(echoed).toMatchObject({ status: "success", func_return: "Echo: hello directly" });
    const summed = await client.mcpServers.tools.run("tool-get-sum", {
      mcp_server_id: id,
      args: { a: 2, b: 3 },
    });
    expect(summed.status).toBe("success");
    expect(String(summed.func_return)).toContain("5");

    await expect(
      client.mcpServers.tools.run("tool-get-sum", { mcp_server_id: id, args: { a: "two" } }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      client.mcpServers.tools.run("tool-nothing", { mcp_server_id: id, args: {} }),
    ).rejects.toMatchObject({ status: 404 });

    // Nothing changed on the server's side: the refresh finds the same tools.
    expect(await client.mcpServers.refresh(id)).toEqual({ added: [], updated: [], deleted: [] });
    await expect(client.mcpServers.refresh(id, { agent_id: "agent-x" })).rejects.toMatchObject({
      status: 422,
    });
  });
});

describe("running an agent's tool directly", () => {
  it("runs it under the agent's rules: allowed tools run, memory tools and approvals are refused", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "the lighthouse keeper likes kippers" }],
    });
    const found = await client.agents.tools.run("conversation_search", {
      agent_id: agent.id,
      args: { query: "kippers" },
    });
    expect(found.status).toBe("success");
    expect(String(found.func_return)).toContain("kippers");

    const status = (promise: Promise<unknown>) =>
      promise.then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    // Memory tools commit with a step: only in a turn.
    expect(
      await status(
        client.agents.tools.run("memory_insert", {
          agent_id: agent.id,
          args: { label: "human", new_str: "x" },
        }),
      ),
    ).toBe(422);
    // Not the agent's tool (MCP not attached, shell beyond its type): 404 as Letta.
    expect(await status(client.agents.tools.run("shell", { agent_id: agent.id, args: {} }))).toBe(
      404,
    );
    expect(
      await status(
        client.agents.tools.run("conversation_search", { agent_id: agent.id, args: { query: 3 } }),
      ),
    ).toBe(422);
    // A tool that needs approval waits for a person: not run directly.
    await client.agents.tools.updateApproval("conversation_search", {
      agent_id: agent.id,
      body_requires_approval: true,
    });
    expect(
      await status(
        client.agents.tools.run("conversation_search", {
          agent_id: agent.id,
          args: { query: "kippers" },
        }),
      ),
    ).toBe(422);
    // Nothing was written by the direct runs.
    const history = await client.agents.messages.list(agent.id, { limit: 100 });
    expect(history.items.filter((m) => m.message_type === "user_message")).toHaveLength(1);
  });
});
