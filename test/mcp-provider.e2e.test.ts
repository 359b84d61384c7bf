import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./fake-openai-server.js";
import { FILESYSTEM_SERVER } from "./support/mcp-servers.js";
import { startTestServer } from "./support/server-kit.js";

let provider: FakeOpenAiServer | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  server = undefined;
  provider = undefined;
  root = undefined;
});

describe("an MCP tool on a real provider's code path", () => {
  it("sends the filesystem server's JSON Schema to an OpenAI-compatible model and returns the file it read", async () => {
    root = mkdtempSync(join(tmpdir(), "holdfast-mcp-provider-"));
    const file = join(root, "plan.txt");
    writeFileSync(file, "step one: connect MCP");
    provider = await startFakeOpenAiServer([
      {
        type: "completion",
        toolCalls: [
          { id: "call-1", name: "read_text_file", arguments: JSON.stringify({ path: file }) },
        ],
      },
      { type: "completion", text: "The plan says to connect MCP." },
    ]);
    server = await startTestServer({
      env: { OPENAI_COMPATIBLE_BASE_URL: provider.baseUrl, OPENAI_COMPATIBLE_API_KEY: "k" },
    });
    const client = server.client();
    await client.mcpServers.create({
      server_name: "files",
      config: {
        mcp_server_type: "stdio",
        command: process.execPath,
        args: [FILESYSTEM_SERVER, root],
      },
    });
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      model: "openai-compatible/fake-model",
    });
    await client.agents.tools.attach("tool-read_text_file", { agent_id: agent.id });

    const reply = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "what does the plan say?" }],
    });
    const returned = reply.messages.find((m) => m.message_type === "tool_return_message");
    expect(returned).toMatchObject({ status: "success", tool_return: "step one: connect MCP" });

    const sent = provider.requests[0]?.body.tools as
      | { function: { name: string; parameters: { properties: Record<string, unknown> } } }[]
      | undefined;
    const tool = sent?.find((t) => t.function.name === "read_text_file");
    expect(Object.keys(tool?.function.parameters.properties ?? {})).toEqual(
      expect.arrayContaining(["path", "head", "tail"]),
    );
    // The second request carries the tool's result back to the model.
    expect(JSON.stringify(provider.requests[1]?.body.messages)).toContain("step one: connect MCP");
  });
});
