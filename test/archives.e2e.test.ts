import Letta from "@letta-ai/letta-client";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, archives: Letta's `/v1/archives`, attaching an archive to agents, and
// `POST /v1/passages/search`, through Letta's official client against the real server (SQLite).

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A sim model that plays `replies` in order, then answers "done"; it keeps every request. */
function scripted(replies: SimReply[]) {
  const seen: ModelRequest[] = [];
  const model = createSimModel({
    script: (request, call) => {
      seen.push(request);
      return replies[call] ?? { text: "done" };
    },
  });
  return { model, seen };
}

const texts = (results: { passage: { text: string } }[]) => results.map((r) => r.passage.text);

describe("archives (issue #15)", () => {
  it("creates, lists, renames and deletes archives, with their passages", async () => {
    server = await startTestServer();
    const client = server.client();
    const papers = await client.archives.create({ name: "papers", description: "Read later" });
    expect(papers).toMatchObject({
      name: "papers",
      description: "Read later",
      vector_db_provider: "native",
      embedding_config: null,
    });
    expect(papers.id).toMatch(/^archive-/);
    const notes = await client.archives.create({ name: "notes" });
    expect(await client.archives.retrieve(papers.id)).toEqual(papers);

    const newestFirst = (await client.archives.list()).getPaginatedItems().map((a) => a.name);
    expect(newestFirst).toEqual(["notes", "papers"]);
    const named = (await client.archives.list({ name: "papers" })).getPaginatedItems();
    expect(named.map((a) => a.id)).toEqual([papers.id]);
    const page = await client.archives.list({ order: "asc", after: papers.id });
    expect(page.getPaginatedItems().map((a) => a.id)).toEqual([notes.id]);

    const renamed = await client.archives.update(papers.id, { name: "reading" });
    expect(renamed).toMatchObject({ name: "reading", description: "Read later" });
    expect((await client.archives.retrieve(papers.id)).name).toBe("reading");

    const one = await client.archives.passages.create(papers.id, {
      text: "Lighthouses use Fresnel lenses to throw light far out to sea",
      tags: ["optics", "optics", "sea"],
      metadata: { source: "handbook", page: 12 },
      created_at: "2026-01-02T03:04:05Z",
    });
    expect(one).toMatchObject({
      archive_id: papers.id,
      tags: ["optics", "sea"],
      metadata: { source: "handbook", page: 12 },
      created_at: "2026-01-02T03:04:05.000Z",
    });
    const many = await client.archives.passages.createMany(papers.id, {
      passages: [{ text: "Gulls nest on the north cliff" }, { text: "Fog horns sound twice" }],
    });
    expect(many.map((p) => p.text)).toEqual([
      "Gulls nest on the north cliff",
      "Fog horns sound twice",
    ]);

    const found = await client.passages.search({ archive_id: papers.id, query: "light lenses" });
    expect(texts(found)).toEqual(["Lighthouses use Fresnel lenses to throw light far out to sea"]);
    expect(found[0]?.passage.metadata).toEqual({ source: "handbook", page: 12 });
    expect(found[0]?.score).toBe(1);

    await client.archives.passages.delete(many[0]?.id as string, { archive_id: papers.id });
    expect(await client.passages.search({ archive_id: papers.id, query: "gulls" })).toEqual([]);
    const again = client.archives.passages.delete(many[0]?.id as string, { archive_id: papers.id });
    await expect(again).rejects.toBeInstanceOf(Letta.NotFoundError);

    await client.archives.delete(papers.id);
    await expect(client.archives.retrieve(papers.id)).rejects.toBeInstanceOf(Letta.NotFoundError);
    const searchGone = client.passages.search({ archive_id: papers.id, query: "light" });
    await expect(searchGone).rejects.toBeInstanceOf(Letta.NotFoundError);
    expect((await client.archives.list()).getPaginatedItems().map((a) => a.id)).toEqual([notes.id]);
  });

  it("an attached archive is searched with the agent's own memory, by the agent and the API", async () => {
    const { model, seen } = scripted([
      {
        toolCalls: [
          {
            name: "archival_memory_search",
            args: { query: "Fresnel lenses", request_heartbeat: true },
          },
        ],
      },
      { toolCalls: [{ name: "send_message", args: { message: "Fresnel lenses." } }] },
    ]);
    server = await startTestServer({ model });
    const client = server.client();
    const shared = await client.archives.create({ name: "station manual" });
    await client.archives.passages.createMany(shared.id, {
      passages: [
        { text: "The lamp uses Fresnel lenses", tags: ["optics"] },
        { text: "Storm shutters close from the inside", tags: ["storms"] },
      ],
    });
    const keeper = await client.agents.create({ agent_type: "memgpt_agent" });
    const visitor = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.passages.create(keeper.id, { text: "I polish the lenses on Sundays" });

    const before = await client.passages.search({ agent_id: keeper.id, query: "lenses" });
    expect(texts(before)).toEqual(["I polish the lenses on Sundays"]);

    await client.agents.archives.attach(shared.id, { agent_id: keeper.id });
    await client.agents.archives.attach(shared.id, { agent_id: keeper.id });
    await client.agents.archives.attach(shared.id, { agent_id: visitor.id });
    const ofKeeper = (await client.archives.list({ agent_id: keeper.id })).getPaginatedItems();
    expect(ofKeeper.map((a) => a.id)).toEqual([shared.id]);

    const both = await client.passages.search({ agent_id: keeper.id, query: "lenses" });
    expect(texts(both).sort()).toEqual([
      "I polish the lenses on Sundays",
      "The lamp uses Fresnel lenses",
    ]);
    // Holdfast names an agent's own passage by `agent_id` (the client's type has no field).
    const owners = both.map(({ passage }) => ({
      text: passage.text,
      archive_id: passage.archive_id,
      agent_id: (passage as { agent_id?: string | null }).agent_id,
    }));
    expect(owners).toContainEqual({
      text: "The lamp uses Fresnel lenses",
      archive_id: shared.id,
      agent_id: null,
    });
    expect(owners).toContainEqual({
      text: "I polish the lenses on Sundays",
      archive_id: null,
      agent_id: keeper.id,
    });
    const tagged = await client.passages.search({
      agent_id: keeper.id,
      query: "lenses shutters",
      tags: ["storms"],
    });
    expect(texts(tagged)).toEqual(["Storm shutters close from the inside"]);
    const agentRoute = await client.agents.passages.search(keeper.id, { query: "shutters" });
    expect(agentRoute.results.map((r) => r.content)).toEqual([
      "Storm shutters close from the inside",
    ]);

    await client.agents.messages.create(keeper.id, { input: "What lenses does the lamp use?" });
    const afterSearch = JSON.stringify((seen[1] as ModelRequest).messages);
    expect(afterSearch).toContain("The lamp uses Fresnel lenses");

    await client.agents.archives.detach(shared.id, { agent_id: keeper.id });
    const detached = await client.passages.search({ agent_id: keeper.id, query: "lenses" });
    expect(texts(detached)).toEqual(["I polish the lenses on Sundays"]);
    const forVisitor = await client.passages.search({ agent_id: visitor.id, query: "lenses" });
    expect(texts(forVisitor)).toEqual(["The lamp uses Fresnel lenses"]);

    await client.agents.delete(visitor.id);
    expect((await client.archives.retrieve(shared.id)).name).toBe("station manual");
    const kept = await client.passages.search({ archive_id: shared.id, query: "lamp" });
    expect(texts(kept)).toEqual(["The lamp uses Fresnel lenses"]);
  });

  it("answers bad requests with a 4xx at the field and keeps projects apart", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["alpha-token", "alpha"],
        ["beta-token", "beta"],
      ]),
    });
    const alpha = server.client("alpha-token");
    const beta = server.client("beta-token");
    const secret = await alpha.archives.create({ name: "secret" });
    await alpha.archives.passages.create(secret.id, { text: "alpha's plans" });
    const betaAgent = await beta.agents.create({});

    await expect(beta.archives.retrieve(secret.id)).rejects.toMatchObject({ status: 404 });
    await expect(beta.archives.list()).resolves.toMatchObject({ body: [] });
    const steal = beta.agents.archives.attach(secret.id, { agent_id: betaAgent.id });
    await expect(steal).rejects.toMatchObject({ status: 404 });
    const peek = beta.passages.search({ archive_id: secret.id, query: "plans" });
    await expect(peek).rejects.toMatchObject({ status: 404 });

    await expect(
      alpha.archives.create({ name: "vectors", embedding: "openai/text-embedding-3-small" }),
    ).rejects.toMatchObject({ status: 422, error: { errors: [{ path: "embedding" }] } });
    await expect(alpha.archives.create({ name: "" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "name" }] },
    });
    await expect(alpha.passages.search({ query: "plans" })).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "agent_id" }] },
    });
    const half = alpha.archives.passages.createMany(secret.id, {
      passages: [{ text: "first half" }, { text: "" }],
    });
    await expect(half).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "passages.1.text" }] },
    });
    expect(await alpha.passages.search({ archive_id: secret.id, query: "half" })).toEqual([]);
    const deep = alpha.archives.passages.create(secret.id, {
      text: "deep",
      metadata: JSON.parse(`${'{"a":'.repeat(40)}1${"}".repeat(40)}`),
    });
    await expect(deep).rejects.toMatchObject({ status: 422 });
  });
});
