import type Letta from "@letta-ai/letta-client";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelAdapter, ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";
import { until } from "./support/until.js";

// Issue #15, memory: Letta's `/v1/blocks` and blocks shared by several agents (decision 024),
// through Letta's official client.

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A model that, told "note <text>", appends <text> to the `team` block with `memory_insert`,
 * then answers "done"; anything else it answers "ok". It keeps every request's system prompt.
 */
function noteTaker() {
  const systems: string[] = [];
  const model = createSimModel({
    script: (request: ModelRequest) => {
      systems.push(request.system);
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "done" };
      const said = last?.role === "user" ? last.content : "";
      const note = /^note (.+)$/.exec(said)?.[1];
      if (!note) return { text: "ok" };
      return { toolCalls: [{ name: "memory_insert", args: { label: "team", new_str: note } }] };
    },
  });
  return { model, systems };
}

/** Holds each model call until `release()` is called once the call has started. */
function gated(inner: ModelAdapter) {
  let open: () => void = () => {};
  let started: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const calling = new Promise<void>((resolve) => {
    started = resolve;
  });
  let calls = 0;
  const model: ModelAdapter = {
    handle: inner.handle,
    contextWindow: inner.contextWindow,
    async generate(request, onDelta) {
      calls++;
      started();
      await gate;
      return inner.generate(request, onDelta);
    },
  };
  return { model, calling, started: () => calls, release: () => open() };
}

const say = (client: Letta, agentId: string, text: string) =>
  client.agents.messages.create(agentId, { messages: [{ role: "user", content: text }] });

const teamValue = async (client: Letta, agentId: string) =>
  (await client.agents.retrieve(agentId)).blocks.find((b) => b.label === "team")?.value;

describe("/v1/blocks (issue #15)", () => {
  it("creates, lists with Letta's filters, retrieves, modifies and deletes blocks", async () => {
    server = await startTestServer();
    const client = server.client();
    const team = await client.blocks.create({
      label: "team",
      value: "Ship on Friday",
      description: "what the team agreed",
      tags: ["team"],
      metadata: { owner: "ops" },
    });
    expect(team).toMatchObject({ label: "team", value: "Ship on Friday", limit: 5000 });
    const plan = await client.blocks.create({ label: "plan", value: "beta first", limit: 50 });
    const agent = await client.agents.create({ block_ids: [team.id] });

    const all = await client.blocks.list();
    expect(all.getPaginatedItems().map((b) => b.id)).toContain(plan.id);
    const byLabel = await client.blocks.list({ label: "plan" });
    expect(byLabel.getPaginatedItems().map((b) => b.id)).toEqual([plan.id]);
    const found = await client.blocks.list({ value_search: "FRIDAY" });
    expect(found.getPaginatedItems().map((b) => b.id)).toEqual([team.id]);
    const tagged = await client.blocks.list({ tags: ["team"] });
    expect(tagged.getPaginatedItems().map((b) => b.id)).toEqual([team.id]);
    const unshared = await client.blocks.list({ connected_to_agents_count_eq: [0] });
    expect(unshared.getPaginatedItems().map((b) => b.id)).toEqual([plan.id]);
    const templates = await client.blocks.list({ templates_only: true });
    expect(templates.getPaginatedItems()).toEqual([]);

    expect(await client.blocks.retrieve(team.id)).toMatchObject({ metadata: { owner: "ops" } });
    const renamed = await client.blocks.update(team.id, { label: "crew", value: "Ship Monday" });
    expect(renamed).toMatchObject({ label: "crew", value: "Ship Monday" });
    const blocks = (await client.agents.retrieve(agent.id)).blocks;
    expect(blocks.find((b) => b.id === team.id)).toMatchObject({ label: "crew" });
    const sharing = await client.blocks.agents.list(team.id);
    expect(sharing.getPaginatedItems().map((a) => a.id)).toEqual([agent.id]);

    await client.blocks.delete(team.id);
    await expect(client.blocks.retrieve(team.id)).rejects.toMatchObject({ status: 404 });
    const after = (await client.agents.retrieve(agent.id)).blocks.map((b) => b.id);
    expect(after).not.toContain(team.id);
    await expect(client.blocks.delete(team.id)).rejects.toMatchObject({ status: 404 });
  });

  it("shares one block: one agent's memory tool edit is in the other's next prompt", async () => {
    const { model, systems } = noteTaker();
    server = await startTestServer({ model });
    const client = server.client();
    const team = await client.blocks.create({ label: "team", value: "Team notes:" });
    const alice = await client.agents.create({
      agent_type: "letta_v1_agent",
      block_ids: [team.id],
    });
    const bob = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.blocks.attach(team.id, { agent_id: bob.id });

    await say(client, alice.id, "note the demo moved to Tuesday");
    expect(await teamValue(client, bob.id)).toBe("Team notes:\nthe demo moved to Tuesday");
    await say(client, bob.id, "hello");
    expect(systems.at(-1)).toContain("the demo moved to Tuesday");
    expect(await client.agents.recompile(bob.id)).toBe(systems.at(-1));
    const sharing = await client.blocks.agents.list(team.id, { order: "asc" });
    expect(sharing.getPaginatedItems().map((a) => a.id)).toEqual([alice.id, bob.id]);

    // Detaching leaves the block to the other agent.
    await client.agents.blocks.detach(team.id, { agent_id: alice.id });
    expect(await teamValue(client, alice.id)).toBeUndefined();
    expect(await teamValue(client, bob.id)).toBe("Team notes:\nthe demo moved to Tuesday");
  });

  it("replaces an agent's blocks with block_ids on update, as Letta does", async () => {
    server = await startTestServer();
    const client = server.client();
    const team = await client.blocks.create({ label: "team", value: "notes" });
    const agent = await client.agents.create({});
    const human = agent.blocks.find((b) => b.label === "human");
    const updated = await client.agents.update(agent.id, { block_ids: [team.id, human?.id ?? ""] });
    expect(updated.blocks.map((b) => b.label)).toEqual(["human", "team"]);
    await expect(
      client.agents.update(agent.id, { block_ids: ["block-none"], name: "renamed" }),
    ).rejects.toMatchObject({ status: 422, error: { errors: [{ path: "block_ids.0" }] } });
    const after = await client.agents.retrieve(agent.id);
    expect(after.name).toBe(agent.name);
    expect(after.blocks.map((b) => b.label)).toEqual(["human", "team"]);
  });

  it("keeps both edits when the API changes a block while an agent's turn edits it", async () => {
    const { model } = noteTaker();
    const slow = gated(model);
    server = await startTestServer({ model: slow.model });
    const client = server.client();
    const team = await client.blocks.create({ label: "team", value: "Team notes:" });
    const alice = await client.agents.create({
      agent_type: "letta_v1_agent",
      block_ids: [team.id],
    });

    // Alice's turn read "Team notes:"; the API appends meanwhile; her insert lands after it.
    const turn = say(client, alice.id, "note from alice");
    await slow.calling;
    await client.blocks.update(team.id, { value: "Team notes:\nfrom the API" });
    slow.release();
    expect((await turn).stop_reason.stop_reason).toBe("end_turn");
    expect((await client.blocks.retrieve(team.id)).value).toBe(
      "Team notes:\nfrom the API\nfrom alice",
    );
  });

  it("keeps both notes when two agents' turns edit one shared block at the same time", async () => {
    const { model } = noteTaker();
    const slow = gated(model);
    server = await startTestServer({ model: slow.model });
    const client = server.client();
    const team = await client.blocks.create({ label: "team", value: "Team notes:" });
    const agents = await Promise.all(
      ["alice", "bob"].map((name) =>
        client.agents.create({ name, agent_type: "letta_v1_agent", block_ids: [team.id] }),
      ),
    );
    // Both turns start (each reads "Team notes:") before either model call answers.
    const turns = agents.map((agent) => say(client, agent.id, `note from ${agent.name}`));
    await until(() => slow.started() === 2);
    slow.release();
    for (const done of await Promise.all(turns)) {
      expect(done.stop_reason.stop_reason).toBe("end_turn");
    }
    const value = (await client.blocks.retrieve(team.id)).value;
    expect(value.split("\n").sort()).toEqual(["Team notes:", "from alice", "from bob"]);
  });

  it("keeps projects apart and answers bad input with a 4xx at the field", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["alpha-token", "alpha"],
        ["beta-token", "beta"],
      ]),
    });
    const alpha = server.client("alpha-token");
    const beta = server.client("beta-token");
    const secret = await alpha.blocks.create({ label: "secret", value: "alpha only" });
    const betaAgent = await beta.agents.create({});
    await expect(beta.blocks.retrieve(secret.id)).rejects.toMatchObject({ status: 404 });
    await expect(beta.blocks.update(secret.id, { value: "x" })).rejects.toMatchObject({
      status: 404,
    });
    await expect(beta.blocks.delete(secret.id)).rejects.toMatchObject({ status: 404 });
    const betaBlocks = (await beta.blocks.list()).getPaginatedItems();
    expect(betaBlocks.map((b) => b.label)).toEqual(["persona", "human"]);
    await expect(
      beta.agents.blocks.attach(secret.id, { agent_id: betaAgent.id }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(beta.agents.create({ block_ids: [secret.id] })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "block_ids.0" }] },
    });
    expect((await alpha.blocks.retrieve(secret.id)).value).toBe("alpha only");

    await expect(alpha.blocks.create({ label: "Bad Label", value: "" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "label" }] },
    });
    await expect(
      alpha.blocks.create({ label: "small", value: "too long", limit: 3 }),
    ).rejects.toMatchObject({ status: 422, error: { errors: [{ path: "value" }] } });
    await expect(alpha.blocks.update(secret.id, { limit: 2 })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "limit" }] },
    });
    const persona = await alpha.agents.create({ memory_blocks: [{ label: "secret", value: "" }] });
    await expect(
      alpha.agents.blocks.attach(secret.id, { agent_id: persona.id }),
    ).rejects.toMatchObject({ status: 409 });
  });
});
