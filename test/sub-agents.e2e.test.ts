import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeOpenAiServer,
  type ReplyFor,
  startFakeOpenAiServer,
} from "./fake-openai-server.js";
import { callTool, configWith, providerEnv, read, say, spawnAll } from "./support/fake-agents.js";
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

/** Types on the fake provider: a boss that spawns, workers on their own model. */
const TYPES = {
  boss: { extends: "orchestrator", model: "openai-compatible/boss-model" },
  worker: {
    extends: "qa_assistant",
    model: "openai-compatible/worker-model",
    description: "answers one question",
  },
  writer: {
    extends: "letta_v1_agent",
    model: "openai-compatible/writer-model",
    tools: { approval: "per_action" },
    policy_profile: "strict",
  },
};

async function start(replyFor: ReplyFor, types: Record<string, unknown> = TYPES) {
  provider = await startFakeOpenAiServer(replyFor);
  server = await startTestServer({ env: providerEnv(provider.baseUrl), config: configWith(types) });
  return server.client();
}

type Client = Awaited<ReturnType<typeof start>>;
const create = (client: Client, type: string) =>
  client.agents.create({ agent_type: type } as unknown as Parameters<
    typeof client.agents.create
  >[0]);

async function spawned(client: Client) {
  const all = [];
  for await (const agent of client.agents.list({ tags: ["spawned"] })) all.push(agent);
  return all;
}

describe("sub-agents through the HTTP API", () => {
  it("runs three spawns of one response in parallel, each child on its own type's model", async () => {
    const client = await start((request) => {
      const r = read(request);
      if (r.model === "worker-model") return say(`answer to ${r.task}`, 1000);
      if (r.lastRole === "user") return spawnAll("worker", ["A", "B", "C"]);
      return say(`all done: ${r.toolResults.map((t) => t.split("\n")[1]).join(", ")}`);
    });
    const boss = await create(client, "boss");
    const response = await client.agents.messages.create(boss.id, {
      messages: [{ role: "user", content: "split it" }],
    });
    expect(response.stop_reason.stop_reason).toBe("end_turn");
    const last = response.messages.at(-1) as { message_type: string; content: string };
    expect(last.message_type).toBe("assistant_message");
    // Answers are taken in as children end (on the Restate engine each end wakes the parent).
    const heard = last.content.replace("all done: ", "").split(", ");
    expect(heard.sort()).toEqual(["answer to A", "answer to B", "answer to C"]);
    // The three children's model calls were in flight at the same moment: they overlapped.
    expect(provider?.peakInFlight).toBe(3);
    const workers = provider?.requests.filter((q) => read(q).model === "worker-model") ?? [];
    expect(workers).toHaveLength(3);
    expect(await spawned(client)).toHaveLength(3);
  });

  it.each([1, 2, 3])(
    "holds limits.max_spawn_depth = %i along the whole chain; the spawn past it is a tool error the model reads",
    async (depth) => {
      const client = await start(
        (request) => {
          const r = read(request);
          if (r.lastRole === "user")
            return callTool("spawn_agent", { agent_type: "deep", prompt: "deeper" });
          return say(`done after: ${r.toolResults.at(-1)?.split("\n").at(-1)}`);
        },
        {
          deep: {
            extends: "orchestrator",
            model: "openai-compatible/deep",
            limits: { max_spawn_depth: depth },
          },
        },
      );
      const root = await create(client, "deep");
      const response = await client.agents.messages.create(root.id, {
        messages: [{ role: "user", content: "go" }],
      });
      expect(response.stop_reason.stop_reason).toBe("end_turn");
      const children = await spawned(client);
      expect(children).toHaveLength(depth);
      const refusals = (provider?.requests ?? [])
        .flatMap((q) => read(q).toolResults)
        .filter((t) => t.startsWith("cannot spawn: the spawn depth limit is reached"));
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toContain(`this agent is ${depth} level`);
    },
  );

  it("surfaces a child's approval on the parent's response, naming the child; approving it lets both go on", async () => {
    const client = await start((request) => {
      const r = read(request);
      if (r.model === "writer-model") {
        return r.lastRole === "user"
          ? callTool("memory_insert", { label: "human", new_str: "likes tea" })
          : say("noted");
      }
      if (r.lastRole === "user") return spawnAll("writer", ["remember tea"]);
      return say(`writer said: ${r.toolResults.at(-1)?.split("\n")[1]}`);
    });
    const boss = await create(client, "boss");
    const chunks: { message_type?: string; agent_id?: string; stop_reason?: string }[] = [];
    const stream = await client.agents.messages.create(boss.id, {
      messages: [{ role: "user", content: "delegate" }],
      streaming: true,
    });
    for await (const chunk of stream) chunks.push(chunk as (typeof chunks)[number]);
    const [child] = await spawned(client);
    // The parent's own stream shows the child's request, naming the child, and stops there.
    const streamed = chunks.find((c) => c.message_type === "approval_request_message");
    expect(streamed).toMatchObject({ agent_id: child?.id, tool_call: { name: "memory_insert" } });
    expect(chunks.find((c) => c.message_type === "stop_reason")).toMatchObject({
      stop_reason: "requires_approval",
    });
    // The run is not over: it waits for the answer.
    const runId = (
      chunks.find((c) => c.message_type === "tool_call_message") as { run_id?: string }
    ).run_id;
    const asked = await fetch(`${server?.url}/v1/runs/${runId}`).then((r) => r.json());
    expect(asked).toMatchObject({ status: "running" });
    const request = streamed;

    // A new message to the parent meanwhile is Letta's 409, not a second run.
    await expect(
      client.agents.messages.create(boss.id, { messages: [{ role: "user", content: "more" }] }),
    ).rejects.toMatchObject({ status: 409 });

    const callId = (request as { tool_call: { tool_call_id: string } }).tool_call.tool_call_id;
    const done = (await client.agents.messages.create(boss.id, {
      messages: [
        {
          type: "approval",
          approvals: [{ type: "approval", tool_call_id: callId, approve: true }],
        },
      ],
    } as unknown as { messages: [] })) as { stop_reason: { stop_reason: string } };
    expect(done.stop_reason.stop_reason).toBe("end_turn");
    const all = await client.agents.messages.list(boss.id, { order: "asc", limit: 100 });
    expect(all.getPaginatedItems().at(-1)).toMatchObject({ content: "writer said: noted" });
    expect(
      (await client.agents.retrieve(child?.id ?? "")).blocks.find((b) => b.label === "human")
        ?.value,
    ).toContain("likes tea");
  });

  it("cancelling the parent cancels its children, and nothing runs on", async () => {
    const client = await start((request) => {
      const r = read(request);
      if (r.model === "worker-model") return say("too late", 60_000);
      return r.lastRole === "user"
        ? spawnAll("worker", ["slow 1", "slow 2"])
        : say("should not happen");
    });
    const boss = await create(client, "boss");
    const pending = client.agents.messages.create(boss.id, {
      messages: [{ role: "user", content: "go" }],
    });
    await until(async () => (provider?.requests.length ?? 0) >= 3);
    await client.agents.messages.cancel(boss.id);
    const response = await pending;
    expect(response.stop_reason.stop_reason).toBe("cancelled");
    const children = await spawned(client);
    expect(children).toHaveLength(2);
    for (const child of children) {
      const runs = await listRuns(child.id);
      expect(runs.map((run) => run.status)).toEqual(["cancelled"]);
    }
    expect(provider?.requests.filter((q) => read(q).model === "boss-model")).toHaveLength(1);
  });

  it("a parent whose child is deleted meanwhile hears so, and goes on", async () => {
    const client = await start((request) => {
      const r = read(request);
      if (r.model === "worker-model") return say("never", 60_000);
      return r.lastRole === "user"
        ? spawnAll("worker", ["slow"])
        : say(`boss heard: ${r.toolResults.at(-1)}`);
    });
    const boss = await create(client, "boss");
    const pending = client.agents.messages.create(boss.id, {
      messages: [{ role: "user", content: "go" }],
    });
    await until(async () => (provider?.requests.length ?? 0) >= 2);
    const [child] = await spawned(client);
    await client.agents.delete(child?.id ?? "");
    const response = await pending;
    expect(response.stop_reason.stop_reason).toBe("end_turn");
    // Deleting cancels the child first; whichever the parent sees first, it is told and goes on.
    const heard = (response.messages.at(-1) as { content?: string }).content ?? "";
    expect(heard).toMatch(/^boss heard: .*(was deleted before it answered|stopped with cancelled)/);
  });

  it("queues a user's message to a child behind the task its parent gave it", async () => {
    const client = await start((request) => {
      const r = read(request);
      // The task takes long enough for the user's message to arrive while it runs.
      if (r.model === "worker-model")
        return say(`answer to ${r.task}`, r.task === "the task" ? 1500 : 0);
      return r.lastRole === "user" ? spawnAll("worker", ["the task"]) : say("boss done");
    });
    const boss = await create(client, "boss");
    const driving = client.agents.messages.create(boss.id, {
      messages: [{ role: "user", content: "go" }],
    });
    await until(
      async () => (await spawned(client)).length === 1 && (provider?.requests.length ?? 0) >= 2,
    );
    const [child] = await spawned(client);
    expect((await listRuns(child?.id ?? ""))[0]?.status).toBe("running");
    const mine = await client.agents.messages.create(child?.id ?? "", {
      messages: [{ role: "user", content: "my own question" }],
    });
    expect(mine.messages.at(-1)).toMatchObject({ content: "answer to my own question" });
    expect((await driving).stop_reason.stop_reason).toBe("end_turn");
    const runs = await listRuns(child?.id ?? "", "asc");
    expect(runs).toHaveLength(2);
    // One activation at a time: the user's run began after the parent's task ended.
    expect(Date.parse(runs[1]?.created_at ?? "")).toBeGreaterThanOrEqual(
      Date.parse(runs[0]?.completed_at ?? ""),
    );
  });
});

describe("runs", () => {
  it("re-attaches to a run's stream after `starting_after`, and gets the rest, nothing twice", async () => {
    let step = 0;
    const client = await start(
      (request) => {
        const r = read(request);
        step += 1;
        if (r.lastRole === "user")
          return callTool("memory_insert", { label: "human", new_str: "x" });
        return say("finished", step > 1 ? 800 : 0);
      },
      { slow: { extends: "letta_v1_agent", model: "openai-compatible/slow" } },
    );
    const agent = await create(client, "slow");
    const stream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "go" }],
      streaming: true,
    });
    const first: { seq_id?: number; id?: string; run_id?: string }[] = [];
    for await (const chunk of stream) {
      first.push(chunk as (typeof first)[number]);
      if (first.length === 2) break; // the client drops the stream mid-run
    }
    const runId = first[0]?.run_id ?? "";
    const after = first.at(-1)?.seq_id ?? 0;
    expect(after).toBeGreaterThan(0);
    const rest: { seq_id?: number; id?: string; message_type?: string }[] = [];
    for await (const chunk of await client.runs.messages.stream(runId, { starting_after: after })) {
      rest.push(chunk as (typeof rest)[number]);
    }
    const ids = [...first, ...rest].flatMap((c) => (c.id ? [c.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    expect(rest.at(-2)).toMatchObject({ message_type: "stop_reason" });
    const stored = await client.runs.messages.list(runId, { order: "asc" });
    const storedIds = stored
      .getPaginatedItems()
      .flatMap((m) => (m.message_type === "user_message" ? [] : [m.id]));
    expect(ids).toEqual(storedIds);

    const run = await client.runs.retrieve(runId);
    expect(run).toMatchObject({
      id: runId,
      agent_id: agent.id,
      status: "completed",
      stop_reason: "end_turn",
    });
    const listed = [];
    for await (const r of client.runs.list({ agent_id: agent.id })) listed.push(r.id);
    expect(listed).toEqual([runId]);
  });
});

describe("the verifier gate", () => {
  it("checks the answer, gives a failed check's findings back for another round, and stores the outcome on the run", async () => {
    let answers = 0;
    const client = await start(
      (request) => {
        const r = read(request);
        if (r.model === "checker") {
          return r.lastText.includes("Answer:\n41")
            ? say("FAIL: 41 is off by one")
            : say("PASS: 42 is right");
        }
        answers += 1;
        return say(answers === 1 ? "41" : "42");
      },
      {
        checker: { extends: "verifier", model: "openai-compatible/checker" },
        careful: {
          extends: "letta_v1_agent",
          model: "openai-compatible/careful",
          verify: { with: "checker", max_rounds: 2 },
        },
      },
    );
    const agent = await create(client, "careful");
    const response = (await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "what is six times seven?" }],
    })) as unknown as {
      messages: { content?: string }[];
      verification: unknown;
      stop_reason: { stop_reason: string };
    };
    expect(response.stop_reason.stop_reason).toBe("end_turn");
    expect(response.messages.at(-1)?.content).toBe("42");
    const outcome = { passed: true, rounds: 2, findings: ["FAIL: 41 is off by one"] };
    expect(response.verification).toEqual(outcome);
    const runId = (response.messages[0] as { run_id?: string }).run_id ?? "";
    expect(await client.runs.retrieve(runId)).toMatchObject({ verification: outcome });
  });
});

async function listRuns(agentId: string, order: "asc" | "desc" = "asc") {
  const res = await fetch(`${server?.url}/v1/runs/?agent_id=${agentId}&order=${order}`);
  if (!res.ok) throw new Error(`GET /v1/runs/: ${res.status} ${await res.text()}`);
  return (await res.json()) as {
    id: string;
    status: string;
    created_at: string;
    completed_at: string;
  }[];
}
