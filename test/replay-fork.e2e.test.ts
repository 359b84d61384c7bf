import { afterEach, describe, expect, it } from "vitest";
import { startTestServer } from "./support/server-kit.js";

/** Replay and fork over real HTTP on SQLite, with the `sim/demo` model (no key). */
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
const running = () => {
  if (!server) throw new Error("no server");
  return server;
};
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A JSON answer, read loosely: each test checks the fields it cares about. */
// biome-ignore lint/suspicious/noExplicitAny: assertions read what they need of the body
type Answer = any;

/** The official client has no replay or fork routes: those go through plain fetch. */
async function post(
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: Answer }> {
  const response = await fetch(`${running().url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

async function say(agentId: string, content: string) {
  const client = running().client();
  const response = await client.agents.messages.create(agentId, {
    messages: [{ role: "user", content }],
  });
  const runId = response.messages.find((m) => "run_id" in m && m.run_id)?.run_id;
  return { response, runId: String(runId) };
}

const human = async (agentId: string) =>
  (await running().client().agents.retrieve(agentId)).blocks.find((b) => b.label === "human")
    ?.value;

/** Each message of the agent as one line: its type and what it says or does. */
const transcript = async (agentId: string) => {
  const lines: string[] = [];
  const list = running().client().agents.messages.list(agentId, { order: "asc", limit: 100 });
  for await (const m of list) {
    const said =
      "content" in m
        ? m.content
        : "tool_call" in m
          ? m.tool_call
          : "tool_return" in m
            ? m.tool_return
            : "";
    lines.push(`${m.message_type}:${JSON.stringify(said)}`);
  }
  return lines;
};

describe("POST /v1/runs/{run_id}/replay", () => {
  it("matches a run unchanged, and names the step a new tool rule changes", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent", name: "tea" });
    const { runId } = await say(agent.id, "remember I like tea");
    expect(await human(agent.id)).toContain("I like tea");

    const same = await post(`/v1/runs/${runId}/replay`);
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ matches: true, complete: true, run_id: runId });

    await client.agents.update(agent.id, {
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    const changed = await post(`/v1/runs/${runId}/replay`);
    expect(changed.json).toMatchObject({
      matches: false,
      step: 2,
      expected: "run 'memory_insert' (call 0)",
      actual: "ask for approval of 'memory_insert' (call 0)",
      reason: "a requires_approval tool rule now covers 'memory_insert'",
    });
  });

  it("answers 404 for a run that does not exist", async () => {
    server = await startTestServer();
    const missing = await post("/v1/runs/run-nope/replay");
    expect(missing.status).toBe(404);
  });
});

describe("POST /v1/agents/{agent_id}/fork", () => {
  it("copies history and memory as of the end of a run; later changes stay apart", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent", name: "orig" });
    const [early] = await client.agents.passages.create(agent.id, { text: "gulls nest on cliffs" });
    const first = await say(agent.id, "remember I like tea");
    const atFork = { human: await human(agent.id), transcript: await transcript(agent.id) };
    expect(atFork.human).toContain("I like tea");
    expect(atFork.transcript.length).toBeGreaterThanOrEqual(4);
    await client.agents.passages.create(agent.id, { text: "added after the point" });
    await say(agent.id, "remember I like coffee");
    await client.agents.passages.delete(early?.id ?? "", { agent_id: agent.id });
    await client.agents.blocks.update("human", { agent_id: agent.id, value: "edited later" });

    const forked = await post(`/v1/agents/${agent.id}/fork`, { run_id: first.runId, name: "alt" });
    expect(forked.status).toBe(200);
    const fork = forked.json as { id: string; name: string };
    expect(fork.name).toBe("alt");
    expect(await human(fork.id)).toBe(atFork.human);
    expect(await human(fork.id)).not.toContain("coffee");
    expect(await transcript(fork.id)).toEqual(atFork.transcript);
    const passages = await client.agents.passages.list(fork.id);
    expect(passages.map((p) => p.text)).toEqual(["gulls nest on cliffs"]);

    // A normal agent: listed and messageable, and it goes its own way.
    const listed = [];
    for await (const a of client.agents.list({ limit: 50 })) listed.push(a.id);
    expect(listed).toContain(fork.id);
    await say(fork.id, "remember I like soup");
    expect(await human(fork.id)).toContain("soup");
    expect(await human(agent.id)).toBe("edited later");
  });

  it("forks at a message with another model and tool rules, and refuses a split tool call", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const { response } = await say(agent.id, "remember I like tea");
    const call = response.messages.find((m) => m.message_type === "tool_call_message");
    const reply = response.messages.find((m) => m.message_type === "assistant_message");

    const split = await post(`/v1/agents/${agent.id}/fork`, { message_id: call?.id });
    expect(split.status).toBe(409);
    expect(split.json.message).toMatch(/'memory_insert' has no result yet/);

    const rules = [{ type: "requires_approval", tool_name: "memory_insert" }];
    const forked = await post(`/v1/agents/${agent.id}/fork`, {
      message_id: reply?.id,
      model: "sim/other",
      tool_rules: rules,
    });
    expect(forked.status).toBe(200);
    expect(forked.json.tool_rules).toEqual(rules);
    expect(forked.json.model ?? forked.json.llm_config?.handle).toContain("sim/other");
    const asked = await say(forked.json.id, "remember I like soup");
    expect(asked.response.stop_reason.stop_reason).toBe("requires_approval");

    const memgpt = await post(`/v1/agents/${agent.id}/fork`, {
      message_id: reply?.id,
      agent_type: "memgpt_agent",
    });
    expect(memgpt.status).toBe(200);
    expect(memgpt.json.agent_type).toBe("memgpt_agent");
    expect(await human(memgpt.json.id)).toContain("I like tea");
  });

  it("answers 422 with the field for a bad point and 404 for an unknown agent", async () => {
    server = await startTestServer();
    const agent = await server.client().agents.create({ agent_type: "letta_v1_agent" });
    const none = await post(`/v1/agents/${agent.id}/fork`, {});
    expect(none.status).toBe(422);
    expect(none.json.errors[0].path).toBe("message_id");
    const unknown = await post(`/v1/agents/${agent.id}/fork`, { message_id: "message-nope" });
    expect(unknown.status).toBe(422);
    const typo = await post(`/v1/agents/${agent.id}/fork`, { run_id: "r", agent_type: "nope" });
    expect(typo.status).toBe(422);
    const missing = await post("/v1/agents/agent-nope/fork", { run_id: "r" });
    expect(missing.status).toBe(404);
  });
});

describe("tenancy", () => {
  it("neither replays nor forks another project's agent, and a fork stays in its project", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["alpha-token", "alpha"],
        ["beta-token", "beta"],
      ]),
    });
    const alpha = server.client("alpha-token");
    const agent = await alpha.agents.create({ agent_type: "letta_v1_agent" });
    const answered = await alpha.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember I like tea" }],
    });
    const runId = answered.messages.find((m) => "run_id" in m && m.run_id)?.run_id;
    expect((await post(`/v1/runs/${runId}/replay`, undefined, "beta-token")).status).toBe(404);
    const stolen = await post(`/v1/agents/${agent.id}/fork`, { run_id: runId }, "beta-token");
    expect(stolen.status).toBe(404);
    expect((await post(`/v1/runs/${runId}/replay`, undefined, "alpha-token")).json.matches).toBe(
      true,
    );
    const fork = await post(`/v1/agents/${agent.id}/fork`, { run_id: runId }, "alpha-token");
    expect(fork.status).toBe(200);
    await expect(server.client("beta-token").agents.retrieve(fork.json.id)).rejects.toMatchObject({
      status: 404,
    });
    expect((await alpha.agents.retrieve(fork.json.id)).id).toBe(fork.json.id);
  });
});
