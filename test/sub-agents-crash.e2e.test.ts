import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startServer, stopServer } from "./cli.js";
import { startFakeOpenAiServer } from "./fake-openai-server.js";
import { providerEnv, read, say, spawnAll } from "./support/fake-agents.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

const CONFIG = `server:
  port: 0
types:
  boss:
    extends: orchestrator
    model: openai-compatible/boss-model
  worker:
    extends: qa_assistant
    model: openai-compatible/worker-model
`;

describe("kill -9 while a sub-agent runs", () => {
  const cwd = tempDir("holdfast-spawn-crash-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  const processes: Awaited<ReturnType<typeof startServer>>["process"][] = [];
  afterAll(async () => {
    for (const child of processes) await stopServer(child);
  });

  it("after the restart the child finishes and the parent resumes with its answer: one child, no orphan", async () => {
    let workerCalls = 0;
    const provider = await startFakeOpenAiServer((request) => {
      const r = read(request);
      if (r.model === "worker-model") {
        workerCalls += 1;
        // The first attempt never answers: the server dies while it waits.
        return workerCalls === 1 ? say("lost", 120_000) : say("the answer");
      }
      if (r.lastRole === "user") return spawnAll("worker", ["the question"]);
      return say(`boss got: ${r.toolResults.at(-1)?.split("\n")[1]}`);
    });
    const env = providerEnv(provider.baseUrl);
    const first = await startServer([], { cwd, env });
    processes.push(first.process);
    const api = (url: string, path: string, init?: RequestInit) =>
      fetch(`${url}${path}`, { ...init, headers: { "content-type": "application/json" } });
    const boss = (await (
      await api(first.url, "/v1/agents/", {
        method: "POST",
        body: JSON.stringify({ agent_type: "boss" }),
      })
    ).json()) as { id: string };
    const sending = api(first.url, `/v1/agents/${boss.id}/messages`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "ask the worker" }] }),
    }).catch(() => null);
    await until(() => workerCalls === 1);
    first.process.kill("SIGKILL");
    await sending;

    const second = await startServer([], { cwd, env });
    processes.push(second.process);
    const runs = async (agentId: string) =>
      (await (await api(second.url, `/v1/runs/?agent_id=${agentId}&order=asc`)).json()) as {
        id: string;
        status: string;
      }[];
    await until(async () => (await runs(boss.id)).every((run) => run.status === "completed"));
    const messages = (await (
      await api(second.url, `/v1/agents/${boss.id}/messages?order=asc&limit=100`)
    ).json()) as { message_type: string; content?: string }[];
    expect(messages.at(-1)).toMatchObject({
      message_type: "assistant_message",
      content: "boss got: the answer",
    });

    const spawned = (await (await api(second.url, "/v1/agents/?tags=spawned")).json()) as {
      id: string;
    }[];
    expect(spawned).toHaveLength(1);
    const childRuns = await runs(spawned[0]?.id ?? "");
    expect(childRuns.map((run) => run.status)).toEqual(["completed"]);
    const tree = (await (await api(second.url, `/v1/agents/${boss.id}/children`)).json()) as {
      status: string;
      task_run: { status: string };
    }[];
    expect(tree).toMatchObject([{ status: "idle", task_run: { status: "completed" } }]);
    expect(workerCalls).toBe(2);
    const shown = runCli(["agents", "tree", boss.id, "--url", second.url]);
    expect(shown.status).toBe(0);
    expect(shown.stdout.trim().split("\n")).toEqual([
      boss.id,
      expect.stringMatching(/^└─ \S+ \[worker\] idle, task completed \(end_turn\) {2}agent-/),
    ]);
    await provider.close();
  }, 60_000);
});
