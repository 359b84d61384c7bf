import Letta from "@letta-ai/letta-client";
import { beforeAll, describe, expect, it } from "vitest";
import { useCluster } from "./support/cluster-kit.js";
import { callTool, read, say } from "./support/fake-agents.js";

// Issue #11, "Proof": a user's journey through Letta's official client against the scale-out
// engine (real PostgreSQL, restate-server, a worker and the API as processes), the same
// routes the embedded suites cover: agents, messages (answered, streamed, retried), memory,
// archives, runs and steps, and the agent file round trip.

const under = useCluster(
  (request) => {
    const r = read(request);
    // "remember X": the agent writes X to archival memory, then answers.
    const remember = /^remember (.+)$/.exec(r.task);
    if (remember && r.lastRole === "user" && r.tools.includes("archival_memory_insert")) {
      return callTool("archival_memory_insert", { content: remember[1], request_heartbeat: true });
    }
    // A MemGPT agent answers through send_message.
    if (r.tools.includes("send_message")) {
      return callTool("send_message", { message: `echo: ${r.task}` });
    }
    return say(`echo: ${r.task}`);
  },
  { workers: 1 },
);
let client: Letta;
beforeAll(() => {
  client = new Letta({ baseURL: under.cluster.api.url, maxRetries: 0, timeout: 60_000 });
});

const model = "openai-compatible/m";

describe("Letta's client against the Restate cluster (issue #11)", () => {
  it("creates, lists, updates and deletes agents with their memory", async () => {
    const agent = await client.agents.create({
      name: "keeper",
      model,
      agent_type: "letta_v1_agent",
      memory_blocks: [{ label: "human", value: "Name: Ada" }],
      tags: ["cluster"],
    });
    expect((await client.agents.retrieve(agent.id)).name).toBe("keeper");
    const updated = await client.agents.update(agent.id, { name: "lighthouse keeper" });
    expect(updated.name).toBe("lighthouse keeper");
    const block = await client.agents.blocks.update("human", {
      agent_id: agent.id,
      value: "Name: Ada Lovelace",
    });
    expect(block.value).toBe("Name: Ada Lovelace");
    const tagged = (await client.agents.list({ tags: ["cluster"] })).getPaginatedItems();
    expect(tagged.map((a) => a.id)).toContain(agent.id);
    await client.agents.delete(agent.id);
    await expect(client.agents.retrieve(agent.id)).rejects.toBeInstanceOf(Letta.NotFoundError);
  });

  it("answers, streams and pages messages, and runs a retried otid once", async () => {
    const agent = await client.agents.create({ model, agent_type: "letta_v1_agent" });
    const answer = await client.agents.messages.create(agent.id, { input: "hello there" });
    const said = answer.messages.find((m) => m.message_type === "assistant_message");
    expect(said && "content" in said ? said.content : null).toBe("echo: hello there");
    expect(answer.stop_reason.stop_reason).toBe("end_turn");

    const stream = await client.agents.messages.stream(agent.id, { input: "stream please" });
    const types: string[] = [];
    for await (const chunk of stream) types.push(String(chunk.message_type));
    expect(types).toEqual(expect.arrayContaining(["assistant_message", "stop_reason"]));

    const otid = `otid-${agent.id}`;
    const once = { messages: [{ role: "user" as const, content: "only once", otid }] };
    const first = await client.agents.messages.create(agent.id, once);
    const again = await client.agents.messages.create(agent.id, once);
    const runOf = (r: typeof first) =>
      r.messages.find((m) => m.message_type === "assistant_message");
    expect(runOf(again)?.id).toBe(runOf(first)?.id);

    const history = (await client.agents.messages.list(agent.id, { order: "asc" }))
      .getPaginatedItems()
      .filter((m) => m.message_type === "user_message");
    expect(history.map((m) => ("content" in m ? m.content : null))).toEqual([
      "hello there",
      "stream please",
      "only once",
    ]);
    const runs = (await client.runs.list({ agent_id: agent.id })).getPaginatedItems();
    expect(runs).toHaveLength(3);
    const steps = (await client.runs.steps.list(runs[0]?.id as string)).getPaginatedItems();
    expect(steps.length).toBeGreaterThan(0);
  });

  it("writes archival memory in a turn, searches it with an attached archive, and moves the agent by file", async () => {
    const agent = await client.agents.create({ model, agent_type: "memgpt_agent" });
    await client.agents.messages.create(agent.id, { input: "remember the lamp is lit at dusk" });
    const own = await client.agents.passages.search(agent.id, { query: "lamp dusk" });
    expect(own.results.map((r) => r.content)).toEqual(["the lamp is lit at dusk"]);

    const manual = await client.archives.create({ name: "manual" });
    await client.archives.passages.create(manual.id, { text: "The lamp burns paraffin" });
    await client.agents.archives.attach(manual.id, { agent_id: agent.id });
    const both = await client.passages.search({ agent_id: agent.id, query: "lamp" });
    expect(both.map((r) => r.passage.text).sort()).toEqual([
      "The lamp burns paraffin",
      "the lamp is lit at dusk",
    ]);

    const file = await client.agents.exportFile(agent.id);
    const imported = await client.agents.importFile({
      file: new File([JSON.stringify(file)], "agent.af", { type: "application/json" }),
    });
    const copy = imported.agent_ids[0] as string;
    expect(copy).not.toBe(agent.id);
    // Archival passages do not travel in Letta's format (decision 022); memory and history do.
    const said = async (id: string) =>
      (await client.agents.messages.list(id, { order: "asc" }))
        .getPaginatedItems()
        .filter((m) => m.message_type === "user_message")
        .map((m) => ("content" in m ? m.content : null));
    expect(await said(copy)).toEqual(await said(agent.id));
    const persona = async (id: string) =>
      (await client.agents.blocks.retrieve("persona", { agent_id: id })).value;
    expect(await persona(copy)).toBe(await persona(agent.id));
    const reply = await client.agents.messages.create(copy, { input: "still there?" });
    expect(reply.stop_reason.stop_reason).toBe("end_turn");
  });

  it("counts the turns it ran on the worker's own metrics page", async () => {
    const agent = await client.agents.create({ model, agent_type: "letta_v1_agent" });
    const page = async () => {
      const url = under.cluster.workers[0]?.metricsUrl;
      return (await (await fetch(`${url}/metrics`)).text()).split("\n");
    };
    const turns = async () =>
      Number(
        (await page())
          .find((line) => line.startsWith('holdfast_turns_total{outcome="end_turn"} '))
          ?.split(" ")[1] ?? 0,
      );
    const before = await turns();
    await client.agents.messages.create(agent.id, { input: "count me" });
    expect(await turns()).toBe(before + 1);
  });

  it("hands a session to another agent through both mailboxes; two handing to each other both end", async () => {
    const api = under.cluster.api.url;
    const post = (path: string, body?: unknown) =>
      fetch(`${api}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        signal: AbortSignal.timeout(60_000),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const sessionOf = async (agentId: string) => {
      const resumed = (await (await post(`/v1/agents/${agentId}/resume`)).json()) as {
        session: { session_id: string };
      };
      return resumed.session.session_id;
    };
    const agent = () => client.agents.create({ model, agent_type: "letta_v1_agent" });
    const [from, to] = [await agent(), await agent()];
    await client.agents.messages.create(from.id, { input: "carry this" });
    const session = await sessionOf(from.id);
    const moved = await post(`/v1/agents/${from.id}/sessions/${session}/transfer`, {
      target_agent_id: to.id,
    });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ session_id: session });
    expect((await fetch(`${api}/v1/agents/${from.id}/sessions/${session}`)).status).toBe(404);
    expect(await sessionOf(to.id)).toBe(session);
    expect(await sessionOf(from.id)).not.toBe(session);

    // Each waits for the other's mailbox only after its own is free again: no deadlock, and
    // neither is left refusing work.
    const [c, d] = [await agent(), await agent()];
    const [cs, ds] = [await sessionOf(c.id), await sessionOf(d.id)];
    const crossed = await Promise.all([
      post(`/v1/agents/${c.id}/sessions/${cs}/transfer`, { target_agent_id: d.id }),
      post(`/v1/agents/${d.id}/sessions/${ds}/transfer`, { target_agent_id: c.id }),
    ]);
    // One may finish before the other starts (the second's session is then gone: 404), or
    // each finds the other busy.
    for (const response of crossed) expect([200, 404, 409, 503]).toContain(response.status);
    for (const id of [c.id, d.id]) {
      const answer = await client.agents.messages.create(id, { input: "still here?" });
      expect(answer.stop_reason?.stop_reason).toBe("end_turn");
    }
  }, 120_000);
});
