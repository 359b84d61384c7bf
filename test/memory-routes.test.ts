import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/server/app.js";
import { listen } from "../src/server/serve.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../src/storage/store.js";
import { serviceKit } from "./support/service-kit.js";

const tokens = new Map([
  ["t1", "p1"],
  ["t2", "p2"],
]);

function appOver(store: Store, withTokens = true) {
  const { config, services } = serviceKit({ store });
  return createApp({ config, version: "t", services, tokens: withTokens ? tokens : null });
}

type App = ReturnType<typeof appOver>;

function caller(app: App, token = "t1") {
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const init = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const response = await app.request(path, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

async function agentIn(app: App, token = "t1", name = "keeper"): Promise<string> {
  const created = await caller(app, token)("POST", "/v1/agents/", {
    name,
    memory_blocks: [
      { label: "persona", value: "a lighthouse keeper", limit: 100 },
      { label: "human", value: "unknown", limit: 50, read_only: true },
    ],
  });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

describe("memory routes over HTTP", () => {
  it("lists, reads and edits blocks by label, a read-only one included", async () => {
    const app = appOver(createInMemoryStore());
    const call = caller(app);
    const id = await agentIn(app);
    const blocks = `/v1/agents/${id}/core-memory/blocks`;
    const list = await call("GET", `${blocks}?order=asc`);
    expect(list.status).toBe(200);
    expect((list.body as unknown as { label: string }[]).map((b) => b.label)).toEqual([
      "persona",
      "human",
    ]);
    const edited = await call("PATCH", `${blocks}/human`, { value: "Ada", limit: 60 });
    expect(edited).toMatchObject({
      status: 200,
      body: { value: "Ada", limit: 60, read_only: true },
    });
    expect((await call("GET", `${blocks}/human`)).body).toMatchObject({ value: "Ada" });
    const missing = await call("GET", `${blocks}/tasks`);
    expect(missing).toMatchObject({
      status: 404,
      body: { detail: "block label 'tasks' not found", known: ["persona", "human"] },
    });
  });

  it("answers a block value or limit that breaks the limit with a 422 at that field", async () => {
    const app = appOver(createInMemoryStore());
    const call = caller(app);
    const blocks = `/v1/agents/${await agentIn(app)}/core-memory/blocks`;
    const long = await call("PATCH", `${blocks}/persona`, { value: "x".repeat(101) });
    expect(long).toMatchObject({ status: 422, body: { errors: [{ path: "value" }] } });
    const low = await call("PATCH", `${blocks}/persona`, { limit: 3 });
    expect(low).toMatchObject({ status: 422, body: { errors: [{ path: "limit" }] } });
    const wrongType = await call("PATCH", `${blocks}/persona`, { value: 42 });
    expect(wrongType).toMatchObject({ status: 422, body: { errors: [{ path: "value" }] } });
    const zero = await call("PATCH", `${blocks}/persona`, { limit: 0 });
    expect(zero).toMatchObject({ status: 422, body: { errors: [{ path: "limit" }] } });
  });

  it("attaches a copy of a project block and detaches it, as Letta's AgentState", async () => {
    const app = appOver(createInMemoryStore());
    const call = caller(app);
    const source = await agentIn(app, "t1", "source");
    const target = await agentIn(app, "t1", "target");
    const persona = (await call("GET", `/v1/agents/${source}/core-memory/blocks/persona`)).body;
    const base = `/v1/agents/${target}/core-memory/blocks`;
    const clash = await call("PATCH", `${base}/attach/${persona.id}`);
    expect(clash.status).toBe(409);
    const own = (await call("GET", `${base}/persona`)).body;
    const detached = await call("PATCH", `${base}/detach/${own.id}`);
    expect(detached).toMatchObject({ status: 200, body: { id: target, name: "target" } });
    const attached = await call("PATCH", `${base}/attach/${persona.id}`);
    expect(attached.status).toBe(200);
    const labels = (attached.body.blocks as { label: string }[]).map((block) => block.label);
    expect(labels.sort()).toEqual(["human", "persona"]);
    expect((await call("PATCH", `${base}/detach/block-none`)).status).toBe(404);
    expect((await call("PATCH", `${base}/attach/block-none`)).status).toBe(404);
  });

  it("inserts, lists, searches and deletes archival passages", async () => {
    const app = appOver(createInMemoryStore());
    const call = caller(app);
    const archival = `/v1/agents/${await agentIn(app)}/archival-memory`;
    const inserted = await call("POST", archival, {
      text: "gulls nest on cliffs",
      tags: ["birds"],
    });
    expect(inserted.status).toBe(200);
    const [passage] = inserted.body as unknown as { id: string; text: string }[];
    expect(passage?.id).toMatch(/^passage-/);
    await call("POST", archival, { text: "a lighthouse on rocks", tags: ["coast"] });
    const listed = await call("GET", `${archival}?ascending=false&limit=1`);
    expect((listed.body as unknown as { text: string }[]).map((p) => p.text)).toEqual([
      "a lighthouse on rocks",
    ]);
    const found = await call("GET", `${archival}/search?query=gulls+lighthouse&tags=birds&tags=x`);
    expect(found).toMatchObject({ status: 200, body: { count: 1 } });
    const all = `${archival}/search?query=gulls+lighthouse&tags=birds&tags=coast&tag_match_mode=all`;
    expect((await call("GET", all)).body).toEqual({ count: 0, results: [] });
    expect(await call("DELETE", `${archival}/${passage?.id}`)).toEqual({ status: 200, body: {} });
    expect((await call("DELETE", `${archival}/${passage?.id}`)).status).toBe(404);
  });

  it("answers bad archival input with a 422 naming the field, never a 500", async () => {
    const app = appOver(createInMemoryStore());
    const call = caller(app);
    const archival = `/v1/agents/${await agentIn(app)}/archival-memory`;
    const cases: [string, string, unknown, string][] = [
      ["POST", archival, {}, "text"],
      ["POST", archival, { text: "x", tags: "coast" }, "tags"],
      ["POST", archival, { text: "x", created_at: "last week" }, "created_at"],
      ["GET", `${archival}?limit=abc`, undefined, "limit"],
      ["GET", `${archival}?ascending=maybe`, undefined, "ascending"],
      ["GET", `${archival}/search`, undefined, "query"],
      ["GET", `${archival}/search?query=a&top_k=0`, undefined, "top_k"],
      ["GET", `${archival}/search?query=a&tag_match_mode=some`, undefined, "tag_match_mode"],
      ["GET", `${archival}/search?query=a&start_datetime=soon`, undefined, "start_datetime"],
      ["GET", `${archival}/search?query=a&query=b`, undefined, "query"],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await call(method, path, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 422 });
      expect(answer.body.errors).toEqual([expect.objectContaining({ path: field })]);
    }
  });

  it("documents every memory route in /openapi.json", async () => {
    const app = appOver(createInMemoryStore(), false);
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, object>;
    };
    const memoryPaths = Object.keys(doc.paths).filter((path) => /memory/.test(path));
    expect(memoryPaths.sort()).toEqual([
      "/v1/agents/{agent_id}/archival-memory",
      "/v1/agents/{agent_id}/archival-memory/search",
      "/v1/agents/{agent_id}/archival-memory/{memory_id}",
      "/v1/agents/{agent_id}/core-memory/blocks",
      "/v1/agents/{agent_id}/core-memory/blocks/attach/{block_id}",
      "/v1/agents/{agent_id}/core-memory/blocks/detach/{block_id}",
      "/v1/agents/{agent_id}/core-memory/blocks/{block_label}",
    ]);
  });

  it("answers every memory route for another project's agent with a 404", async () => {
    const app = appOver(createInMemoryStore());
    const id = await agentIn(app, "t1");
    const stranger = caller(app, "t2");
    const blocks = `/v1/agents/${id}/core-memory/blocks`;
    const archival = `/v1/agents/${id}/archival-memory`;
    const routes: [string, string, unknown?][] = [
      ["GET", blocks],
      ["GET", `${blocks}/persona`],
      ["PATCH", `${blocks}/persona`, { value: "stolen" }],
      ["PATCH", `${blocks}/attach/block-00000001`],
      ["PATCH", `${blocks}/detach/block-00000001`],
      ["POST", archival, { text: "planted" }],
      ["GET", archival],
      ["GET", `${archival}/search?query=keeper`],
      ["DELETE", `${archival}/passage-00000001`],
    ];
    for (const [method, path, body] of routes) {
      const answer = await stranger(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    const mine = await caller(app, "t1")("GET", `${blocks}/persona`);
    expect(mine.body).toMatchObject({ value: "a lighthouse keeper" });
  });
});

describe("memory routes through Letta's official client", () => {
  it("retrieves and updates blocks and manages archival memory over a real server", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "holdfast-memory-"));
    const store = await openSqliteStore(join(dataDir, "holdfast.db"));
    const server = await listen(appOver(store, false), "127.0.0.1", 0);
    try {
      const client = new Letta({ baseURL: server.url, maxRetries: 0 });
      const agent = await client.agents.create({
        name: "keeper",
        memory_blocks: [{ label: "persona", value: "a lighthouse keeper", limit: 100 }],
      });
      const blocks = client.agents.blocks;
      const persona = await blocks.retrieve("persona", { agent_id: agent.id });
      expect(persona).toMatchObject({ label: "persona", value: "a lighthouse keeper" });
      const updated = await blocks.update("persona", { agent_id: agent.id, value: "a beekeeper" });
      expect(updated.value).toBe("a beekeeper");
      const labels: string[] = [];
      for await (const block of blocks.list(agent.id, { limit: 1 })) labels.push(block.label ?? "");
      expect(labels).toContain("persona");
      await expect(
        blocks.update("persona", { agent_id: agent.id, value: "x".repeat(101) }),
      ).rejects.toMatchObject({ status: 422 });

      const passages = client.agents.passages;
      const [gulls] = await passages.create(agent.id, {
        text: "gulls nest on cliffs",
        tags: ["birds"],
      });
      await passages.create(agent.id, { text: "a lighthouse on rocks", tags: ["coast"] });
      const listed = await passages.list(agent.id, { ascending: false });
      expect(listed.map((p) => p.text)).toEqual(["a lighthouse on rocks", "gulls nest on cliffs"]);
      const found = await passages.search(agent.id, { query: "gulls", tags: ["birds", "coast"] });
      expect(found.count).toBe(1);
      expect(found.results[0]).toMatchObject({ id: gulls?.id, content: "gulls nest on cliffs" });
      await passages.delete(gulls?.id ?? "", { agent_id: agent.id });
      expect((await passages.list(agent.id)).map((p) => p.text)).toEqual(["a lighthouse on rocks"]);
      await expect(passages.delete(gulls?.id ?? "", { agent_id: agent.id })).rejects.toMatchObject({
        status: 404,
      });
    } finally {
      await server.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
