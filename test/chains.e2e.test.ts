import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeOpenAiServer,
  type ReplyFor,
  startFakeOpenAiServer,
} from "./fake-openai-server.js";
import { callTool, configWith, providerEnv, read, say } from "./support/fake-agents.js";
import { startTestServer } from "./support/server-kit.js";
import { until } from "./support/until.js";

let provider: FakeOpenAiServer | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.close();
  server = undefined;
  provider = undefined;
});

const TYPES = {
  digger: { extends: "qa_assistant", model: "openai-compatible/dig-model" },
  merger: { extends: "synthesis", model: "openai-compatible/merge-model" },
  judge: { extends: "scoring", model: "openai-compatible/judge-model" },
  writer: {
    extends: "letta_v1_agent",
    model: "openai-compatible/writer-model",
    tools: { approval: "per_action" },
    policy_profile: "strict",
  },
};

const dig = (name: string) => ({ type: "digger", name, task: `${name}: {{input}}` });
const CHAINS = {
  investigate: {
    description: "three angles, merged, graded",
    stages: [
      {
        name: "research",
        parallel: true,
        agents: [dig("logs"), dig("metrics"), dig("traces")],
        synthesis: { type: "merger" },
      },
      { name: "grade", scoring: { type: "judge", min_score: 50 } },
    ],
  },
  race: {
    stages: [{ name: "race", parallel: true, success: "any", agents: [dig("fast"), dig("slow")] }],
  },
  careful: { stages: [{ name: "write", agents: [{ type: "writer" }] }] },
  pipeline: {
    stages: [
      { name: "find", agents: [dig("finder")] },
      {
        name: "check",
        agents: [{ type: "digger", name: "checker", task: "check {{stages.find.output}}" }],
      },
    ],
  },
};

interface AgentRun {
  name: string;
  role: string;
  agent_id: string;
  status: string;
  output: string | null;
  output_source: string | null;
  usage: { prompt_tokens: number } | null;
  started_at_ms: number | null;
  ended_at_ms: number | null;
}
interface StageRun {
  name: string;
  status: string;
  output: string | null;
  agents: AgentRun[];
  synthesis: AgentRun | null;
}
interface ChainRun {
  id: string;
  chain: string;
  status: string;
  stages: StageRun[];
  score: { value: number | null; min_score: number | null; passed: boolean } | null;
  error: { stage: string | null; message: string } | null;
  pending_approvals: {
    stage: string;
    agent_id: string;
    tool_call: { tool_call_id: string; name: string };
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; step_count: number };
  completed_at_ms: number | null;
}

async function start(replyFor: ReplyFor) {
  provider = await startFakeOpenAiServer(replyFor);
  server = await startTestServer({
    env: providerEnv(provider.baseUrl),
    config: configWith(TYPES, CHAINS),
  });
  return server.url;
}

async function call(path: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${server?.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const run = async (chain: string, input: string, extra: Record<string, unknown> = {}) => {
  const { status, body } = await call(`/v1/chains/${chain}/runs`, { body: { input, ...extra } });
  if (status >= 300) throw new Error(`${status} ${JSON.stringify(body)}`);
  return body as unknown as ChainRun;
};

/** A run of `careful` whose writer asks to call memory_insert, and says "noted" once it ran. */
async function pausedForApproval(): Promise<ChainRun> {
  await start((request) => {
    const r = read(request);
    return r.lastRole === "user"
      ? callTool("memory_insert", { label: "human", new_str: "likes tea" })
      : say("noted");
  });
  return run("careful", "remember tea");
}

/** The fake model: diggers answer their angle, the merger merges, the judge grades. */
function investigation(
  options: { judge?: string; stallMs?: number; mergerReasoningOnly?: boolean } = {},
): ReplyFor {
  return (request) => {
    const r = read(request);
    if (r.model === "dig-model") return say(`found by ${r.task.split(":")[0]}`, options.stallMs);
    if (r.model === "merge-model") {
      const merged = `merged: ${[...r.task.matchAll(/found by (\w+)/g)].map((m) => m[1]).join("+")}`;
      return options.mergerReasoningOnly ? { type: "completion", reasoning: merged } : say(merged);
    }
    if (r.model === "judge-model") return say(options.judge ?? "score: 87\nsolid");
    return say("?");
  };
}

describe("chains over HTTP", () => {
  it("runs a parallel stage at once, merges every output, scores it, and keeps it all on the run", async () => {
    await start(investigation({ stallMs: 500 }));
    const done = await run("investigate", "why is the disk full?");
    expect(done.status).toBe("completed");
    // The three researchers' model calls were in flight at the same moment.
    expect(provider?.peakInFlight).toBe(3);
    const [research, grade] = done.stages;
    expect(research?.agents.map((a) => [a.name, a.status, a.output])).toEqual([
      ["logs", "completed", "found by logs"],
      ["metrics", "completed", "found by metrics"],
      ["traces", "completed", "found by traces"],
    ]);
    expect(research?.synthesis).toMatchObject({
      status: "completed",
      output: "merged: logs+metrics+traces",
    });
    expect(research?.output).toBe("merged: logs+metrics+traces");
    expect(grade?.output).toBe("score: 87\nsolid");
    expect(done.score).toEqual({ value: 87, min_score: 50, passed: true });
    expect(done.usage.step_count).toBe(5);
    expect(done.completed_at_ms).not.toBeNull();
    for (const agent of [...(research?.agents ?? []), research?.synthesis]) {
      expect(agent?.ended_at_ms).toBeGreaterThanOrEqual(
        agent?.started_at_ms ?? Number.POSITIVE_INFINITY,
      );
    }
    // The judge read the merged answer, with the input.
    const judged = provider?.requests.find((q) => read(q).model === "judge-model");
    expect(read(judged as never).task).toContain("merged: logs+metrics+traces");
    expect(read(judged as never).task).toContain("why is the disk full?");
    // Each stage agent is a real agent with one run, tagged with its chain.
    const agent = research?.agents[0]?.agent_id ?? "";
    const runs = (await call(`/v1/runs?agent_id=${agent}`)).body as unknown as { status: string }[];
    expect(runs.map((r) => r.status)).toEqual(["completed"]);
    expect((await call(`/v1/agents/${agent}`)).body).toMatchObject({
      tags: ["chain", "chain:investigate"],
    });
    // The record reads back the same, and is listed.
    expect((await call(`/v1/chain-runs/${done.id}`)).body).toEqual(done);
    const listed = (await call("/v1/chain-runs?chain=investigate")).body as unknown as ChainRun[];
    expect(listed.map((r) => r.id)).toEqual([done.id]);
  });

  it("feeds earlier stages' outputs to later ones through templates", async () => {
    await start((request) => {
      const r = read(request);
      return say(r.task.startsWith("check") ? `checked (${r.task})` : "the culprit is /var/log");
    });
    const done = await run("pipeline", "disk");
    expect(done.stages.map((s) => s.output)).toEqual([
      "the culprit is /var/log",
      "checked (check the culprit is /var/log)",
    ]);
  });

  it("with success any, the first success ends the stage and the others are cancelled", async () => {
    await start((request) => {
      const r = read(request);
      return r.task.startsWith("fast") ? say("quick answer") : say("too late", 30_000);
    });
    const done = await run("race", "go");
    expect(done.status).toBe("completed");
    const [stage] = done.stages;
    expect(stage?.agents.map((a) => [a.name, a.status])).toEqual([
      ["fast", "completed"],
      ["slow", "cancelled"],
    ]);
    expect(stage?.output).toBe("quick answer");
    const slow = stage?.agents[1]?.agent_id ?? "";
    const runs = (await call(`/v1/runs?agent_id=${slow}`)).body as unknown as {
      stop_reason: string;
    }[];
    expect(runs.map((r) => r.stop_reason)).toEqual(["cancelled"]);
  });

  it("an unparsable score is an explicit failure, never a silent 0", async () => {
    await start(investigation({ judge: "looks fine to me" }));
    const done = await run("investigate", "q");
    expect(done.status).toBe("failed");
    expect(done.score).toEqual({ value: null, min_score: 50, passed: false });
    expect(done.error).toMatchObject({
      stage: "grade",
      message: expect.stringContaining("holds no score"),
    });
  });

  it("a score below the minimum fails the run, a JSON score is read", async () => {
    await start(investigation({ judge: 'verdict: {"score": 12, "why": "thin"}' }));
    const done = await run("investigate", "q");
    expect(done.status).toBe("failed");
    expect(done.score).toEqual({ value: 12, min_score: 50, passed: false });
    expect(done.error?.message).toBe("score 12 is below the minimum of 50");
  });

  it("uses a synthesis model's reasoning when it gives no text, and says so", async () => {
    await start(investigation({ mergerReasoningOnly: true }));
    const done = await run("investigate", "q");
    expect(done.status).toBe("completed");
    expect(done.stages[0]?.synthesis).toMatchObject({
      output: "merged: logs+metrics+traces",
      output_source: "reasoning",
    });
    expect(done.stages[0]?.agents[0]?.output_source).toBe("text");
  });

  it("pauses for an agent's approval with the request on the run; answering it finishes the chain", async () => {
    const paused = await pausedForApproval();
    expect(paused.status).toBe("awaiting_approval");
    expect(paused.stages[0]?.agents[0]?.status).toBe("awaiting_approval");
    const [request] = paused.pending_approvals;
    expect(request).toMatchObject({ stage: "write", tool_call: { name: "memory_insert" } });
    expect((await call(`/v1/chain-runs/${paused.id}`)).body).toMatchObject({
      status: "awaiting_approval",
    });

    const wrong = await call(`/v1/chain-runs/${paused.id}/approvals`, {
      body: { approvals: [{ tool_call_id: "nope", approve: true }] },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      { path: "approvals.0.tool_call_id", message: expect.stringContaining("nope") },
    ]);

    const answered = await call(`/v1/chain-runs/${paused.id}/approvals`, {
      body: { approvals: [{ tool_call_id: request?.tool_call.tool_call_id, approve: true }] },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: "completed", pending_approvals: [] });
    expect((answered.body as unknown as ChainRun).stages[0]?.output).toBe("noted");
    const again = await call(`/v1/chain-runs/${paused.id}/approvals`, {
      body: { approvals: [{ tool_call_id: "x", approve: true }] },
    });
    expect(again.status).toBe(409);
  });

  it("a watcher re-attaches mid-run and follows it to the end; an answer on the agent's own route counts", async () => {
    const paused = await pausedForApproval();
    expect(paused.status).toBe("awaiting_approval");
    const watching = fetch(`${server?.url}/v1/chain-runs/${paused.id}/stream`).then((r) =>
      r.text(),
    );
    const [request] = paused.pending_approvals;
    // Answered through Letta's agent route, not the chain's.
    const client = server?.client();
    await client?.agents.messages.create(request?.agent_id ?? "", {
      messages: [
        {
          type: "approval",
          approvals: [
            { type: "approval", tool_call_id: request?.tool_call.tool_call_id, approve: true },
          ],
        },
      ],
    } as never);
    const frames = (await watching)
      .split("\n")
      .filter((l) => l.startsWith("data: {"))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(frames[0]).toMatchObject({ message_type: "chain_run", status: "awaiting_approval" });
    expect(frames.at(-1)).toMatchObject({
      message_type: "chain_run",
      status: "completed",
      pending_approvals: [],
    });
    expect(frames).toContainEqual(
      expect.objectContaining({
        message_type: "assistant_message",
        content: "noted",
        stage: "write",
      }),
    );
  });

  it("streams every stage agent's events tagged with stage and agent, then the finished run", async () => {
    await start(investigation());
    const response = await fetch(`${server?.url}/v1/chains/investigate/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "q", stream: true }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const lines = (await response.text()).split("\n").filter((l) => l.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    const frames = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(frames[0]).toMatchObject({ message_type: "chain_run", status: "running" });
    expect(frames.at(-1)).toMatchObject({ message_type: "chain_run", status: "completed" });
    const replies = frames.filter((f) => f.message_type === "assistant_message");
    expect(replies.map((f) => [f.stage, f.agent_name, f.content])).toEqual(
      expect.arrayContaining([
        ["research", "logs", "found by logs"],
        ["research", "synthesis", "merged: logs+metrics+traces"],
        ["grade", "scoring", "score: 87\nsolid"],
      ]),
    );
    const stages = frames
      .filter((f) => f.message_type === "chain_stage")
      .map((f) => `${f.stage}:${f.status}`);
    expect(stages.slice(stages.indexOf("research:completed"))).toEqual([
      "research:completed",
      "grade:running",
      "grade:completed",
    ]);
  });

  it("cancels a run in the background: its agents at work are cancelled, the run says so", async () => {
    await start(investigation({ stallMs: 30_000 }));
    const started = await call("/v1/chains/investigate/runs", {
      body: { input: "q", background: true },
    });
    expect(started.status).toBe(202);
    const id = String(started.body.id);
    await until(() => (provider?.requests.length ?? 0) === 3);
    const cancelled = await call(`/v1/chain-runs/${id}/cancel`, { body: {} });
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
    const run = cancelled.body as unknown as ChainRun;
    expect(run.stages.map((s) => s.status)).toEqual(["cancelled", "cancelled"]);
    expect(run.stages[0]?.agents.map((a) => a.status)).toEqual([
      "cancelled",
      "cancelled",
      "cancelled",
    ]);
    expect(run.stages[1]?.agents.map((a) => a.status)).toEqual(["skipped"]);
  });

  it("keeps each project's chain runs to itself", async () => {
    provider = await startFakeOpenAiServer(investigation());
    server = await startTestServer({
      env: providerEnv(provider.baseUrl),
      config: configWith(TYPES, CHAINS),
      tokens: new Map([
        ["token-a", "project-a"],
        ["token-b", "project-b"],
      ]),
    });
    const as = (token: string, path: string, body?: unknown) =>
      fetch(`${server?.url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const mine = (await (
      await as("token-a", "/v1/chains/pipeline/runs", { input: "x" })
    ).json()) as ChainRun;
    expect(mine.status).toBe("completed");
    expect((await as("token-b", `/v1/chain-runs/${mine.id}`)).status).toBe(404);
    expect((await as("token-b", `/v1/chain-runs/${mine.id}/cancel`, {})).status).toBe(404);
    expect((await as("token-b", `/v1/chain-runs/${mine.id}/stream`)).status).toBe(404);
    expect(await (await as("token-b", "/v1/chain-runs")).json()).toEqual([]);
    expect(await (await as("token-a", "/v1/chain-runs")).json()).toHaveLength(1);
    const agentId = mine.stages[0]?.agents[0]?.agent_id;
    expect((await as("token-b", `/v1/agents/${agentId}`)).status).toBe(404);
    expect((await as("token-a", `/v1/agents/${agentId}`)).status).toBe(200);
  });

  it("answers mistakes with clear errors", async () => {
    await start(investigation());
    const unknown = await call("/v1/chains/nope/runs", { body: { input: "q" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.known).toEqual(["investigate", "race", "careful", "pipeline"]);
    const empty = await call("/v1/chains/investigate/runs", { body: { input: "" } });
    expect(empty.status).toBe(422);
    expect((empty.body.errors as { path: string }[])[0]?.path).toBe("input");
    expect((await call("/v1/chain-runs/nope")).status).toBe(404);
    const listed = (await call("/v1/chains")).body as unknown as { name: string }[];
    expect(listed.map((c) => c.name)).toEqual(["investigate", "race", "careful", "pipeline"]);
    expect((await call("/v1/chains/investigate")).body).toMatchObject({
      stages: [
        {
          name: "research",
          parallel: true,
          agents: [{ name: "logs", model: "openai-compatible/dig-model" }, {}, {}],
        },
        { name: "grade", min_score: 50 },
      ],
    });
  });
});
