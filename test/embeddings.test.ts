import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import { DEFAULT_EMBEDDING_BATCH } from "../src/llm/embedding-model.js";
import { type Assembled, assemble } from "../src/server/assemble.js";
import { conceptVector, startFakeEmbeddingServer } from "./support/fake-embedding-server.js";

const SMALL = "openai/text-embedding-3-small";
const LARGE = "openai/text-embedding-3-large";
const PROJECT = "default";

type FakeServer = Awaited<ReturnType<typeof startFakeEmbeddingServer>>;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The embedded engine over SQLite in a temp dir, embedding through the fake server. */
async function start(
  options: { embedding?: string | null; vectorFor?: (text: string) => number[] } = {},
): Promise<{ engine: Assembled; fake: FakeServer }> {
  const fake = await startFakeEmbeddingServer(
    options.vectorFor ? { vectorFor: options.vectorFor } : {},
  );
  const embedding = options.embedding === undefined ? SMALL : options.embedding;
  const checked = checkConfig(embedding ? { defaults: { memory: { embedding } } } : {});
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const dataDir = mkdtempSync(join(tmpdir(), "holdfast-embed-"));
  const engine = await assemble({
    config: checked.config,
    dataDir,
    defaultModel: "sim/demo",
    env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: fake.baseUrl },
    embeddingRetry: { baseMs: 5, maxMs: 20 },
  });
  cleanups.push(async () => {
    await engine.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { engine, fake };
}

async function newAgent(engine: Assembled, body: Record<string, unknown> = {}): Promise<string> {
  const agent = await engine.services.agents.create(PROJECT, {
    agent_type: "memgpt_agent",
    ...body,
  });
  return agent.id;
}

async function insert(engine: Assembled, agentId: string, ...texts: string[]): Promise<void> {
  for (const text of texts) await engine.services.memory.insertPassage(PROJECT, agentId, { text });
}

async function search(engine: Assembled, agentId: string, query: string, topK = 5) {
  const found = await engine.services.memory.searchPassages(PROJECT, agentId, {
    query,
    topK,
    tags: [],
    tagMatchMode: "any",
  });
  return found.results.map((result) => result.content);
}

const status = async (engine: Assembled, agentId: string) =>
  (await engine.services.agents.get(PROJECT, agentId)).embedding_status;

describe("embeddings and hybrid search", () => {
  it("embeds N passages in ceil(N / batch) requests, off the write path", async () => {
    const { engine, fake } = await start();
    const agentId = await newAgent(engine);
    const count = DEFAULT_EMBEDDING_BATCH * 2 + 5;
    const passages = Array.from({ length: count }, (_, i) => ({
      id: `passage-b${i}`,
      text: `note ${i}`,
      tags: [],
      created_at_ms: 1_000 + i,
    }));
    await engine.store.insertPassages(agentId, passages);
    await engine.embeddings.queue.settled();
    expect(fake.served().map((request) => request.input.length)).toEqual([
      DEFAULT_EMBEDDING_BATCH,
      DEFAULT_EMBEDDING_BATCH,
      5,
    ]);
    expect(fake.served().every((request) => request.model === "text-embedding-3-small")).toBe(true);
    expect(await status(engine, agentId)).toMatchObject({
      model: SMALL,
      embedded: count,
      total: count,
      state: "ready",
    });
  });

  it("takes one batch per agent in turn, so a big backlog does not hold up another agent", async () => {
    const { engine, fake } = await start();
    const [big, small] = [await newAgent(engine), await newAgent(engine)];
    const release = fake.hold();
    const count = DEFAULT_EMBEDDING_BATCH * 3;
    const passages = Array.from({ length: count }, (_, i) => ({
      id: `passage-f${i}`,
      text: `note ${i}`,
      tags: [],
      created_at_ms: 1_000 + i,
    }));
    await engine.store.insertPassages(big, passages);
    await insert(engine, small, "a new note");
    release();
    await engine.embeddings.queue.settled();
    expect(fake.served().map((request) => request.input.length)).toEqual([
      DEFAULT_EMBEDDING_BATCH,
      1,
      DEFAULT_EMBEDDING_BATCH,
      DEFAULT_EMBEDDING_BATCH,
    ]);
  });

  it("retries a batch after 500s with backoff, and the write never waits for it", async () => {
    const { engine, fake } = await start();
    const agentId = await newAgent(engine);
    fake.failNext(3, 500);
    await insert(engine, agentId, "I drive a sedan to work");
    // The insert returned before any vector exists; full-text finds the passage meanwhile.
    expect(await search(engine, agentId, "sedan")).toEqual(["I drive a sedan to work"]);
    await engine.embeddings.queue.settled();
    const statuses = fake.requests.map((request) => request.status);
    expect(statuses.slice(0, 3)).toEqual([500, 500, 500]);
    expect(statuses.slice(3).every((code) => code === 200)).toBe(true);
    expect(await status(engine, agentId)).toMatchObject({
      embedded: 1,
      total: 1,
      state: "ready",
      last_error: null,
    });
  });

  it("finds a passage by meaning when the query shares no word with it", async () => {
    const { engine } = await start();
    const agentId = await newAgent(engine);
    await insert(engine, agentId, "My kitten sleeps all day", "Tea is better than juice");
    await engine.embeddings.queue.settled();
    // "feline" is in neither passage: only the vector ranking can find it.
    expect(await search(engine, agentId, "feline", 1)).toEqual(["My kitten sleeps all day"]);
  });

  it("puts a passage both rankings found above those only one ranking found", async () => {
    const { engine } = await start();
    const agentId = await newAgent(engine);
    // BM25 ranks "espresso" passages by the word; vectors rank the coffee concept first.
    await insert(
      engine,
      agentId,
      "espresso espresso machine manual",
      "a latte with caffeine every morning",
      "the espresso bar near the beach and waves",
    );
    await engine.embeddings.queue.settled();
    const found = await search(engine, agentId, "espresso", 3);
    // Full-text ranks [manual, bar]; vectors rank manual and latte (the coffee concept) above
    // bar (half beach). Manual and bar are in both rankings, latte only in one: it comes last,
    // though the vectors put it first or second.
    expect(found).toEqual([
      "espresso espresso machine manual",
      "the espresso bar near the beach and waves",
      "a latte with caffeine every morning",
    ]);
  });

  it("re-embeds an agent's memory in the background when its model changes", async () => {
    const { engine, fake } = await start();
    const agentId = await newAgent(engine);
    await insert(engine, agentId, "summit trail at dawn", "ocean waves at night");
    await engine.embeddings.queue.settled();
    const before = fake.served().length;
    const release = fake.hold();
    const updated = await engine.services.agents.update(PROJECT, agentId, { embedding: LARGE });
    expect(updated.embedding).toBe(LARGE);
    expect(updated.embedding_status).toMatchObject({
      model: LARGE,
      embedded: 0,
      total: 2,
      state: "embedding",
    });
    release();
    await engine.embeddings.queue.settled();
    const again = fake.served().slice(before);
    expect(again.map((request) => request.model)).toEqual(["text-embedding-3-large"]);
    expect(again[0]?.input).toEqual(["summit trail at dawn", "ocean waves at night"]);
    expect(await status(engine, agentId)).toMatchObject({
      model: LARGE,
      embedded: 2,
      total: 2,
      state: "ready",
    });
    expect(await search(engine, agentId, "hiking", 1)).toEqual(["summit trail at dawn"]);
  });

  it("embeds messages, so conversation search finds them by meaning", async () => {
    const { engine } = await start();
    const agentId = await newAgent(engine);
    await engine.services.messages.send(PROJECT, agentId, {
      messages: [{ role: "user", content: "we are throwing a party on saturday" }],
    });
    await engine.embeddings.queue.settled();
    // "celebration" shares no word with the turn: only its vector finds it (the agent's reply,
    // which repeats it, is found as well).
    const hits = await engine.store.searchMessages(agentId, "celebration", { limit: 3 });
    expect(hits.map((hit) => hit.text)).toContain("we are throwing a party on saturday");
  });

  it("searches full-text only without an embedding model, and says so on the agent", async () => {
    const { engine, fake } = await start({ embedding: null });
    const agentId = await newAgent(engine);
    await insert(engine, agentId, "My kitten sleeps all day");
    await engine.embeddings.queue.settled();
    expect(fake.requests).toEqual([]);
    expect(await search(engine, agentId, "feline")).toEqual([]);
    expect(await search(engine, agentId, "kitten")).toEqual(["My kitten sleeps all day"]);
    expect(await status(engine, agentId)).toMatchObject({ model: null, state: "off" });
  });

  it("refuses an embedding handle of a provider without embeddings, at its field", async () => {
    const { engine } = await start();
    await expect(newAgent(engine, { embedding: "anthropic/claude-embed" })).rejects.toMatchObject({
      errors: [
        { path: "embedding", message: expect.stringContaining("serves no embedding models") },
      ],
    });
    const checked = checkConfig({
      types: { t: { extends: "memgpt_agent", memory: { embedding: "sim/x" } } },
    });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors[0]?.path).toBe("types.t.memory.embedding");
  });

  it("uses the vector the test's server returns, whatever the model", () => {
    expect(conceptVector("car automobile")[0]).toBe(2);
  });
});
