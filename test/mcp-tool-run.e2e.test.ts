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

    // An agent's tool runs only in its turns (rules, approvals, sandbox): refused with the way.
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const refused = await client.agents.tools
      .run("memory_insert", { agent_id: agent.id, args: {} })
      .then(
        () => null,
        (error: { status: number; message: string }) => error,
      );
    expect(refused?.status).toBe(422);
    expect(refused?.message).toContain("/v1/mcp-servers/{id}/tools/{tool_id}/run");
  });
});
