import { describe, expect, it } from "vitest";
import { checkConfig } from "../../src/config/config-file.js";
import { startTestServer } from "../support/server-kit.js";

// Issue #16, point 5, through the real server: it detects bubblewrap at start-up, offers the
// shell, and an agent's command runs in the sandbox over its own workspace.

const CANARY = process.env.HOLDFAST_SANDBOX_CANARY ?? "";

/** react_agent without approvals, so that one message runs one command. */
function runnerConfig() {
  const checked = checkConfig({
    types: { runner: { extends: "react_agent", policy_profile: "permissive" } },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

describe("a server with bubblewrap", () => {
  it("detects it, offers the shell, and runs an agent's command inside it", async () => {
    const server = await startTestServer({ config: runnerConfig() });
    try {
      expect(server.engine.sandbox).toMatchObject({ ok: true, sandbox: { mode: "bwrap" } });
      const type = await fetch(`${server.url}/v1/agent-types/runner`);
      const body = (await type.json()) as { capabilities: { offered: { name: string }[] } };
      expect(body.capabilities.offered.map((tool) => tool.name)).toContain("shell");

      const client = server.client();
      // Holdfast's own types are not in the client's AgentType union; the server accepts them.
      const create = { agent_type: "runner" } as unknown as Parameters<
        typeof client.agents.create
      >[0];
      const agent = await client.agents.create(create);
      const command = "pwd; echo $HOME; cat /proc/1/environ | tr '\\0' ' '; ls /; touch made-here";
      const reply = await client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: `run: ${command}` }],
      });
      const result = reply.messages.find((m) => m.message_type === "tool_return_message");
      const output = result && "tool_return" in result ? String(result.tool_return) : "";
      expect(output).toContain("exit code: 0\n/workspace\n/workspace\n");
      expect(output).not.toContain(CANARY);
      expect(output).not.toMatch(/^(data|tmp\/holdfast|holdfast\.db)$/m);
    } finally {
      await server.close();
    }
  });
});
