import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { startFakeOpenAiServer } from "./fake-openai-server.js";
import { callTool, providerEnv, read, say } from "./support/fake-agents.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

// Issue #12: a call of a tool that is not idempotent, in flight when the server is killed, is
// not run again after the restart; the model is told its outcome is unknown.
const CONFIG = `server:
  port: 0
sandbox:
  mode: none
types:
  operator:
    extends: react_agent
    model: openai-compatible/op-model
    tools: { packs: [shell], access: full, approval: never }
    policy_profile: permissive
`;

describe("kill -9 while a tool that is not idempotent runs", () => {
  const cwd = tempDir("holdfast-tool-crash-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  const marker = join(cwd, "effects.txt");
  const processes: Awaited<ReturnType<typeof startServer>>["process"][] = [];
  afterAll(async () => {
    for (const child of processes) await stopServer(child);
  });

  it("is not repeated after the restart, and the model hears that its outcome is unknown", async () => {
    const provider = await startFakeOpenAiServer((request) => {
      const r = read(request);
      if (r.lastRole === "user") {
        return callTool("shell", { command: `echo effect >> ${marker}; sleep 60` });
      }
      return say(`heard: ${r.toolResults.at(-1)}`);
    });
    const env = providerEnv(provider.baseUrl);
    const first = await startServer([], { cwd, env });
    processes.push(first.process);
    const api = (url: string, path: string, init?: RequestInit) =>
      fetch(`${url}${path}`, { ...init, headers: { "content-type": "application/json" } });
    const agent = (await (
      await api(first.url, "/v1/agents/", {
        method: "POST",
        body: JSON.stringify({ agent_type: "operator" }),
      })
    ).json()) as { id: string };
    const sending = api(first.url, `/v1/agents/${agent.id}/messages`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "post it" }] }),
    }).catch(() => null);
    await until(() => existsSync(marker));
    first.process.kill("SIGKILL");
    await sending;

    const second = await startServer([], { cwd, env });
    processes.push(second.process);
    const runs = async () =>
      (await (await api(second.url, `/v1/runs/?agent_id=${agent.id}`)).json()) as {
        status: string;
      }[];
    await until(async () => (await runs()).every((run) => run.status === "completed"));
    const messages = (await (
      await api(second.url, `/v1/agents/${agent.id}/messages?order=asc&limit=100`)
    ).json()) as { message_type: string; content?: string; status?: string }[];
    expect(messages.find((m) => m.message_type === "tool_return_message")).toMatchObject({
      status: "error",
    });
    expect(messages.at(-1)?.content).toMatch(/^heard: .*the outcome of this call is unknown/);
    expect(readFileSync(marker, "utf8")).toBe("effect\n");
    await provider.close();
  }, 60_000);
});
