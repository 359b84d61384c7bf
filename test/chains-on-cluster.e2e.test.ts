import { describe, expect, it } from "vitest";
import type { ClusterProcess } from "../src/cli/dev/cluster.js";
import { useCluster } from "./support/cluster-kit.js";
import { callTool, read, say } from "./support/fake-agents.js";
import { until } from "./support/until.js";

// Issue #11: chains on the scale-out engine, with two API processes sharing the runs. A run
// is driven by one API process at a time; the other answers it from the store and passes its
// cancels and approvals on; when the driving process is killed with SIGKILL, the other takes
// the run up and finishes it without running a finished agent, or a model call, again.
const CONFIG = `sandbox:
  mode: none
types:
  digger:
    extends: qa_assistant
    model: openai-compatible/dig-model
  writer:
    extends: letta_v1_agent
    model: openai-compatible/writer-model
    tools: { approval: per_action }
    policy_profile: strict
chains:
  relay:
    stages:
      - name: first
        agents: [{ type: digger, name: slow, task: "slow: {{input}}" }]
      - name: second
        agents: [{ type: digger, name: quick, task: "quick: {{stages.first.output}}" }]
  careful:
    stages:
      - name: write
        agents: [{ type: writer }]
`;

interface ChainRun {
  id: string;
  status: string;
  stages: { name: string; status: string; output: string | null }[];
  pending_approvals: { tool_call: { tool_call_id: string } }[];
}

/** How long the `slow` agent's model takes to answer. */
let slowMs = 3_000;
const under = useCluster(
  (request) => {
    const r = read(request);
    if (r.model === "writer-model") {
      return r.lastRole === "user"
        ? callTool("memory_insert", { label: "human", new_str: "likes tea" })
        : say("noted");
    }
    if (r.task.startsWith("slow:")) return say(`found (${r.task})`, slowMs);
    return say(`checked (${r.task})`);
  },
  { workers: 1, config: CONFIG },
);

async function call(api: ClusterProcess, path: string, body?: unknown) {
  const response = await fetch(`${api.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as ChainRun };
}

async function startRun(api: ClusterProcess, chain: string, input: string): Promise<string> {
  const started = await call(api, `/v1/chains/${chain}/runs`, { input, background: true });
  expect(started.status).toBe(202);
  return started.body.id;
}

const modelCalls = (prefix: string) =>
  under.provider.requests.filter((request) => read(request).task.startsWith(prefix)).length;

describe("chains on the Restate cluster", () => {
  it("a run outlives the API process that drove it: another finishes it, no model call twice", async () => {
    slowMs = 3_000;
    const victim = await under.cluster.addApi();
    const id = await startRun(victim, "relay", "disk");
    await until(() => modelCalls("slow: disk") === 1, 30_000);
    await victim.crash();
    // The agent's turn goes on on the worker; the survivor's sweep takes the run up.
    await until(
      async () =>
        (await call(under.cluster.api, `/v1/chain-runs/${id}`)).body.status === "completed",
      60_000,
    );
    const done = (await call(under.cluster.api, `/v1/chain-runs/${id}`)).body;
    expect(done.stages.map((stage) => [stage.name, stage.status, stage.output])).toEqual([
      ["first", "completed", "found (slow: disk)"],
      ["second", "completed", "checked (quick: found (slow: disk))"],
    ]);
    expect(modelCalls("slow: disk")).toBe(1);
    expect(modelCalls("quick: found (slow: disk)")).toBe(1);
  }, 120_000);

  it("approvals, cancels and streams reach a run through an API process that does not drive it", async () => {
    const other = await under.cluster.addApi();
    const paused = await startRun(under.cluster.api, "careful", "remember tea");
    await until(
      async () =>
        (await call(other, `/v1/chain-runs/${paused}`)).body.status === "awaiting_approval",
      30_000,
    );
    const asked = (await call(other, `/v1/chain-runs/${paused}`)).body.pending_approvals;
    expect(asked).toHaveLength(1);
    const watching = fetch(`${other.url}/v1/chain-runs/${paused}/stream`).then((r) => r.text());

    const wrong = await call(other, `/v1/chain-runs/${paused}/approvals`, {
      approvals: [{ tool_call_id: "nope", approve: true }],
    });
    expect(wrong.status).toBe(422);
    const answered = await call(other, `/v1/chain-runs/${paused}/approvals`, {
      approvals: [{ tool_call_id: asked[0]?.tool_call.tool_call_id, approve: true }],
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: "completed", pending_approvals: [] });
    expect(answered.body.stages[0]?.output).toBe("noted");
    // The stream on the other process ends with the run's final state.
    const frames = (await watching).split("\n").filter((line) => line.startsWith("data: {"));
    expect(frames.at(-1)).toContain('"completed"');

    slowMs = 5_000;
    const running = await startRun(under.cluster.api, "relay", "logs");
    await until(() => modelCalls("slow: logs") === 1, 30_000);
    const cancelled = await call(other, `/v1/chain-runs/${running}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    expect(cancelled.body.stages.map((stage) => stage.status)).toEqual(["cancelled", "cancelled"]);
    expect((await call(under.cluster.api, `/v1/chain-runs/${running}`)).body.status).toBe(
      "cancelled",
    );
  }, 120_000);
});
