import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { describe, expect, it } from "vitest";
import { useCluster } from "./support/cluster-kit.js";
import { callTool, read, say } from "./support/fake-agents.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

// Issue #11: the scale-out engine as real processes (PostgreSQL, restate-server, two workers
// behind a balancer, the API), driven by Letta's own client. A worker, or Restate itself, is
// killed with SIGKILL while a turn runs a tool: the turn completes, every acknowledged message
// is stored once, and no completed model or tool call is made again.
const CONFIG = `sandbox:
  mode: none
types:
  operator:
    extends: react_agent
    model: openai-compatible/op-model
    tools: { packs: [shell], access: full, approval: never }
    policy_profile: permissive
  talker:
    extends: letta_v1_agent
    model: openai-compatible/talk-model
`;

/** Where the tool leaves its marker files. */
const cwd = tempDir("holdfast-restate-e2e-");
const under = useCluster(
  (request) => {
    const r = read(request);
    if (r.model === "talk-model") return say(`echo: ${r.task}`);
    if (r.lastRole === "user") {
      // The task names its marker file: the tool leaves one line there, then sleeps.
      return callTool("shell", { command: `echo effect >> ${r.task}; sleep 30` });
    }
    return say(`heard: ${r.toolResults.at(-1)}`);
  },
  { workers: 2, config: CONFIG },
);

/** The pid of the process running `marker`'s shell command, and of its worker. */
function holders(marker: string): { shell: number[]; worker: number | undefined } {
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  const shell = pids
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
  const workerPids = new Set(under.cluster.workers.map((w) => w.child.pid));
  const parentOf = (pid: number) =>
    Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  let worker: number | undefined;
  for (let pid = shell[0] ?? 0; pid > 1 && worker === undefined; pid = parentOf(pid)) {
    if (workerPids.has(pid)) worker = pid;
  }
  return { shell, worker };
}

async function runThrough(crash: (marker: string) => Promise<void>, otid?: string) {
  const client = new Letta({ baseURL: under.cluster.api.url, maxRetries: 0, timeout: 120_000 });
  const agent = await client.agents.create({ agent_type: "operator" } as never);
  const marker = join(cwd, `effects-${agent.id}.txt`);
  const sending = client.agents.messages
    .create(agent.id, { messages: [{ role: "user", content: marker, ...(otid && { otid }) }] })
    .then(
      (answer) => answer,
      () => null,
    );
  await until(() => existsSync(marker), 60_000);
  await crash(marker);
  // Restate down, the API's request fails: the client sends again with the same otid.
  const answer =
    (await sending) ??
    (await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: marker, ...(otid && { otid }) }],
    }));
  const asked = under.provider.requests.filter((r) => read(r).task === marker);
  return { client, agent, marker, answer, asked };
}

describe("the Restate engine as real processes", () => {
  it("finishes a turn on the other worker after kill -9 of the one running it", async () => {
    const { client, agent, marker, answer, asked } = await runThrough(async (marker) => {
      const { shell, worker } = holders(marker);
      const running = under.cluster.workers.find((w) => w.child.pid === worker);
      expect(running).toBeDefined();
      await running?.crash();
      for (const pid of shell) process.kill(pid, "SIGKILL");
    });
    expect(answer.stop_reason?.stop_reason).toBe("end_turn");
    expect(answer.messages.at(-1)).toMatchObject({ message_type: "assistant_message" });
    const items = (await client.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;
    expect(items.filter((m) => m.message_type === "user_message")).toHaveLength(1);
    expect(items.filter((m) => m.message_type === "tool_return_message")).toHaveLength(1);
    // The tool ran once; the model was asked once for the call that had completed.
    expect(readFileSync(marker, "utf8")).toBe("effect\n");
    expect(asked.filter((r) => read(r).lastRole === "user")).toHaveLength(1);
  }, 180_000);

  it("finishes a turn after kill -9 of restate-server and its restart; a retried otid is answered once", async () => {
    const { client, agent, marker, answer, asked } = await runThrough(async (marker) => {
      await under.cluster.restate.crash();
      for (const pid of holders(marker).shell) process.kill(pid, "SIGKILL");
      await under.cluster.restate.restart();
    }, "otid-restate-crash");
    expect(answer.stop_reason?.stop_reason).toBe("end_turn");
    const items = (await client.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;
    expect(items.filter((m) => m.message_type === "user_message")).toHaveLength(1);
    expect(items.filter((m) => m.message_type === "tool_return_message")).toHaveLength(1);
    expect(items.at(-1)).toMatchObject({ message_type: "assistant_message" });
    expect(readFileSync(marker, "utf8")).toBe("effect\n");
    expect(asked.filter((r) => read(r).lastRole === "user")).toHaveLength(1);
  }, 180_000);

  it("keeps one agent's messages in order when two API servers send to it at once", async () => {
    const second = await under.cluster.addApi();
    const clients = [under.cluster.api.url, second.url].map(
      (baseURL) => new Letta({ baseURL, maxRetries: 0, timeout: 120_000 }),
    );
    const [a, b] = clients as [Letta, Letta];
    const agent = await a.agents.create({ agent_type: "talker" } as never);
    const texts = Array.from({ length: 6 }, (_, i) => `m${i}`);
    const answers = await Promise.all(
      texts.map((content, i) =>
        (i % 2 === 0 ? a : b).agents.messages.create(agent.id, {
          messages: [{ role: "user", content }],
        }),
      ),
    );
    expect(answers.map((answer) => answer.stop_reason?.stop_reason)).toEqual(
      texts.map(() => "end_turn"),
    );
    const items = (await b.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;
    const said = items.map((m) => ("content" in m ? String(m.content) : ""));
    // Every message is answered before the next one starts: the turns never interleave.
    expect(said).toHaveLength(12);
    for (let i = 0; i < said.length; i += 2) expect(said[i + 1]).toBe(`echo: ${said[i]}`);
    expect([...said.filter((_, i) => i % 2 === 0)].sort()).toEqual(texts);
  }, 120_000);
});
