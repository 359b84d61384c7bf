import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { startFakeOpenAiServer } from "./fake-openai-server.js";
import { providerEnv, read, say } from "./support/fake-agents.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

const CONFIG = `server:
  port: 0
types:
  digger:
    extends: qa_assistant
    model: openai-compatible/dig-model
  merger:
    extends: synthesis
    model: openai-compatible/merge-model
chains:
  investigate:
    stages:
      - name: research
        parallel: true
        agents:
          - { type: digger, name: logs, task: "logs: {{input}}" }
          - { type: digger, name: metrics, task: "metrics: {{input}}" }
          - { type: digger, name: traces, task: "traces: {{input}}" }
        synthesis: { type: merger }
      - name: report
        agents: [{ type: digger, name: writer, task: "report: {{previous}}" }]
`;

interface ChainRun {
  id: string;
  status: string;
  stages: {
    name: string;
    status: string;
    output: string | null;
    agents: { name: string; agent_id: string; status: string }[];
  }[];
}

describe("kill -9 in the middle of a chain stage", () => {
  const cwd = tempDir("holdfast-chain-crash-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  const processes: Awaited<ReturnType<typeof startServer>>["process"][] = [];
  afterAll(async () => {
    for (const child of processes) await stopServer(child);
  });

  it("after the restart the run goes on from where it was: finished agents are not run again, none runs twice", async () => {
    const calls = new Map<string, number>();
    const provider = await startFakeOpenAiServer((request) => {
      const r = read(request);
      const who = r.model === "merge-model" ? "merger" : (r.task.split(":")[0] ?? "");
      const n = (calls.get(who) ?? 0) + 1;
      calls.set(who, n);
      if (r.model === "merge-model")
        return say(`merged ${[...r.task.matchAll(/by (\w+)/g)].map((m) => m[1]).join("+")}`);
      if (who === "report") return say(`report on ${r.task.slice("report: ".length)}`);
      // The traces agent's first call never answers: the server dies while it waits.
      if (who === "traces" && n === 1) return say("lost", 120_000);
      return say(`by ${who}`);
    });
    const env = providerEnv(provider.baseUrl);
    const first = await startServer([], { cwd, env });
    processes.push(first.process);
    const api = async (url: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return response.json() as Promise<ChainRun>;
    };
    const started = await api(first.url, "/v1/chains/investigate/runs", {
      input: "disk full",
      background: true,
    });
    await until(async () => {
      const run = await api(first.url, `/v1/chain-runs/${started.id}`);
      return (
        calls.get("traces") === 1 &&
        run.stages[0]?.agents.filter((a) => a.status === "completed").length === 2
      );
    });
    first.process.kill("SIGKILL");

    const second = await startServer([], { cwd, env });
    processes.push(second.process);
    await until(
      async () => (await api(second.url, `/v1/chain-runs/${started.id}`)).status !== "running",
    );
    const done = await api(second.url, `/v1/chain-runs/${started.id}`);
    expect(done.status).toBe("completed");
    expect(done.stages.map((s) => s.output)).toEqual([
      "merged logs+metrics+traces",
      "report on merged logs+metrics+traces",
    ]);
    // The two that had finished were not asked again; the one cut short was, once.
    expect(Object.fromEntries(calls)).toEqual({
      logs: 1,
      metrics: 1,
      traces: 2,
      merger: 1,
      report: 1,
    });
    // Every stage agent has exactly one run of its task.
    for (const agent of done.stages.flatMap((s) => s.agents)) {
      const runs = (await (
        await fetch(`${second.url}/v1/runs?agent_id=${agent.agent_id}`)
      ).json()) as { status: string }[];
      expect(runs.map((r) => r.status)).toEqual(["completed"]);
    }
    await provider.close();
  }, 60_000);
});
