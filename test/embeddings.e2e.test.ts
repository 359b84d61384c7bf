import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { HOLDFAST_BIN } from "./cli.js";
import { startFakeEmbeddingServer } from "./support/fake-embedding-server.js";
import { startTestServer } from "./support/server-kit.js";
import { until } from "./support/until.js";

const run = promisify(execFile);
type Server = Awaited<ReturnType<typeof startTestServer>>;
type Fake = Awaited<ReturnType<typeof startFakeEmbeddingServer>>;
let server: Server | undefined;
let fake: Fake | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  server = undefined;
  fake = undefined;
});

/** The model searches archival memory for "automobile", then answers. */
const searchThenAnswer = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { toolCalls: [{ name: "send_message", args: { message: "found it" } }] }
        : { toolCalls: [{ name: "archival_memory_search", args: { query: "automobile" } }] },
  });

async function start(embedding: string | null) {
  fake = await startFakeEmbeddingServer();
  const checked = checkConfig(embedding ? { defaults: { memory: { embedding } } } : {});
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  server = await startTestServer({
    config: checked.config,
    model: searchThenAnswer(),
    env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: fake.baseUrl },
  });
  return server.client();
}

type WithStatus = { embedding_status?: { state: string; embedded: number; total: number } };

describe("hybrid search through Letta's client", () => {
  it("finds a passage by meaning, over the search route and the agent's search tool", async () => {
    const client = await start("openai/text-embedding-3-small");
    const models = await client.models.embeddings.list();
    expect(models.map((model) => [model.handle, model.embedding_dim])).toEqual([
      ["openai/text-embedding-3-small", 1536],
    ]);
    const agent = await client.agents.create({ agent_type: "memgpt_agent" });
    expect(agent.embedding).toBe("openai/text-embedding-3-small");
    await client.agents.passages.create(agent.id, { text: "I drive a red sedan to work" });
    await client.agents.passages.create(agent.id, { text: "Tea is better than juice" });
    await until(async () => {
      const state = (await client.agents.retrieve(agent.id)) as unknown as WithStatus;
      return state.embedding_status?.state === "ready";
    });
    // No word of the query is in the passage: only its vector can find it.
    const found = await client.agents.passages.search(agent.id, { query: "automobile", top_k: 1 });
    expect(found.results.map((result) => result.content)).toEqual(["I drive a red sedan to work"]);

    const reply = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "what do I drive?" }],
    });
    const toolReturn = reply.messages.find((m) => m.message_type === "tool_return_message");
    expect(toolReturn && "tool_return" in toolReturn ? toolReturn.tool_return : "").toContain(
      "I drive a red sedan to work",
    );
  });

  it("re-embeds after the agent's embedding changes, with progress on the agent", async () => {
    const client = await start("openai/text-embedding-3-small");
    const agent = await client.agents.create({ agent_type: "memgpt_agent" });
    for (const text of ["ocean waves", "summit trail", "espresso"]) {
      await client.agents.passages.create(agent.id, { text });
    }
    const ready = async () =>
      ((await client.agents.retrieve(agent.id)) as unknown as WithStatus).embedding_status;
    await until(async () => (await ready())?.state === "ready");
    const release = (fake as Fake).hold();
    const updated = (await client.agents.update(agent.id, {
      embedding: "openai/text-embedding-3-large",
    })) as unknown as WithStatus & { embedding: string };
    expect(updated.embedding).toBe("openai/text-embedding-3-large");
    expect(updated.embedding_status).toMatchObject({ state: "embedding", embedded: 0, total: 3 });
    release();
    await until(async () => (await ready())?.state === "ready");
    expect(await ready()).toMatchObject({ embedded: 3, total: 3 });
    const large = (fake as Fake).served().filter((r) => r.model === "text-embedding-3-large");
    expect(large.flatMap((r) => r.input).sort()).toEqual([
      "espresso",
      "ocean waves",
      "summit trail",
    ]);
    // Not spawnSync: the server answering the CLI runs in this process.
    const show = await run(process.execPath, [
      HOLDFAST_BIN,
      ...["agents", "show", agent.id, "--url", (server as Server).url],
    ]);
    expect(show.stdout).toContain(
      "search  hybrid with openai/text-embedding-3-large: 3/3 embedded, ready",
    );
  });

  it("searches by words alone and lists no embedding model when none is configured", async () => {
    const client = await start(null);
    expect(await client.models.embeddings.list()).toEqual([]);
    const agent = await client.agents.create({ agent_type: "memgpt_agent" });
    expect(agent.embedding).toBeNull();
    await client.agents.passages.create(agent.id, { text: "I drive a red sedan to work" });
    const byMeaning = await client.agents.passages.search(agent.id, { query: "automobile" });
    expect(byMeaning.count).toBe(0);
    const byWord = await client.agents.passages.search(agent.id, { query: "sedan" });
    expect(byWord.results.map((result) => result.content)).toEqual(["I drive a red sedan to work"]);
    await expect(
      client.agents.create({ agent_type: "memgpt_agent", embedding: "anthropic/x" }),
    ).rejects.toMatchObject({ status: 422 });
  });
});
