import Letta, { toFile } from "@letta-ai/letta-client";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { startFakeEmbeddingServer } from "./support/fake-embedding-server.js";
import { startTestServer } from "./support/server-kit.js";
import { tinyPdf } from "./support/tiny-pdf.js";

// Issue #15, folders and files: upload, attach, open files in context and Letta's file tools,
// through Letta's official client against the real server (SQLite).

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const GUIDE = [
  "# Lighthouse guide",
  "",
  "The keeper lights the lamp at dusk.",
  "Gulls nest on the north cliff.",
  "The fog horn sounds every thirty seconds.",
].join("\n");

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

const markdown = (name: string, text: string) =>
  toFile(Buffer.from(text), name, { type: "text/markdown" });

async function folderWithFiles(client: Letta, name = "manuals") {
  const folder = await client.folders.create({ name, description: "How the station runs" });
  const guide = await client.folders.files.upload(folder.id, {
    file: await markdown("guide.md", GUIDE),
  });
  const pdf = await client.folders.files.upload(folder.id, {
    file: await toFile(
      Buffer.from(tinyPdf(["Storm procedure: close the shutters", "Radio channel sixteen"])),
      "storms.pdf",
      {
        type: "application/pdf",
      },
    ),
  });
  return { folder, guide, pdf };
}

describe("folders and files (issue #15)", () => {
  it("uploads markdown and PDF, parsed and chunked, and lists and reads them back", async () => {
    server = await startTestServer();
    const client = server.client();
    const { folder, guide, pdf } = await folderWithFiles(client);
    expect(guide).toMatchObject({
      source_id: folder.id,
      processing_status: "completed",
      file_type: "text/markdown",
      file_size: Buffer.byteLength(GUIDE),
    });
    expect(pdf).toMatchObject({ processing_status: "completed", file_type: "application/pdf" });
    expect(pdf.total_chunks).toBeGreaterThan(0);

    const listed = [];
    for await (const file of client.folders.files.list(folder.id)) listed.push(file.file_name);
    expect(listed).toEqual(["storms.pdf", "guide.md"]);
    const read = await client.folders.files.retrieve(pdf.id, {
      folder_id: folder.id,
      include_content: true,
    });
    expect(read.content).toContain("Storm procedure: close the shutters");
    expect(read.content).toContain("Radio channel sixteen");

    const again = await client.folders.files.upload(folder.id, {
      file: await markdown("guide.md", "v2"),
    });
    expect(again.file_name).toBe("guide_(1).md");
    const folders = [];
    for await (const f of client.folders.list()) folders.push(f.name);
    expect(folders).toEqual(["manuals"]);
    await client.folders.files.delete(again.id, { folder_id: folder.id });
    const after = await client.folders.files
      .retrieve(again.id, { folder_id: folder.id })
      .catch((e: unknown) => e);
    expect(after).toBeInstanceOf(Letta.NotFoundError);
  });

  it("attaches a folder: files open in context, the file tools are offered and work", async () => {
    const { model, seen } = scripted([
      { toolCalls: [{ name: "grep_files", args: { pattern: "gulls" } }] },
      {
        toolCalls: [
          {
            name: "open_files",
            args: { file_requests: [{ file_name: "manuals/guide.md", offset: 2, length: 2 }] },
          },
        ],
      },
      { toolCalls: [{ name: "semantic_search_files", args: { query: "storm shutters" } }] },
    ]);
    server = await startTestServer({ model });
    const client = server.client();
    const { folder, guide, pdf } = await folderWithFiles(client);
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });

    const attached = [];
    for await (const f of client.agents.folders.list(agent.id)) attached.push(f.id);
    expect(attached).toEqual([folder.id]);
    expect(await client.folders.agents.list(folder.id)).toEqual([agent.id]);
    expect((await client.agents.retrieve(agent.id)).sources.map((s) => s.id)).toEqual([folder.id]);
    const files = [];
    for await (const f of client.agents.files.list(agent.id)) files.push(f);
    expect(files.map((f) => [f.file_name, f.is_open, f.folder_name])).toEqual([
      ["manuals/storms.pdf", true, "manuals"],
      ["manuals/guide.md", true, "manuals"],
    ]);
    const tools = (await client.agents.retrieve(agent.id, { include: ["agent.tools"] })).tools.map(
      (t) => t.name,
    );
    expect(tools).toEqual(
      expect.arrayContaining(["open_files", "grep_files", "semantic_search_files"]),
    );

    await client.agents.messages.create(agent.id, { input: "Where do gulls nest?" });
    const first = seen[0] as ModelRequest;
    expect(first.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["grep_files"]));
    expect(first.system).toContain('<directory name="manuals">');
    expect(first.system).toContain('<file status="open" name="manuals/guide.md">');
    expect(first.system).toContain("3: Gulls nest on the north cliff.");
    const toolText = (request: ModelRequest | undefined) =>
      request?.messages.flatMap((m) => (m.role === "tool" ? [m.content] : [])).at(-1) ?? "";
    expect(toolText(seen[1])).toContain("=== manuals/guide.md:3 ===");
    expect(toolText(seen[1])).toContain("> 3: Gulls nest on the north cliff.");
    expect(toolText(seen[2])).toContain("* Opened manuals/guide.md (lines 3-4)");
    expect(seen[2]?.system).toContain("[Viewing lines 3 to 4 (out of 4 lines)]");
    expect(toolText(seen[3])).toContain("=== manuals/storms.pdf (passage #1) ===");
    expect(toolText(seen[3])).toContain("Storm procedure: close the shutters");

    const context = await client.get<{ core_memory: string }>(`/v1/agents/${agent.id}/context`);
    expect(context.core_memory).toContain('<file status="open" name="manuals/guide.md">');

    const closed = await client.agents.files.closeAll(agent.id);
    expect(closed.sort()).toEqual(["manuals/guide.md", "manuals/storms.pdf"]);
    expect(await client.agents.files.open(guide.id, { agent_id: agent.id })).toEqual([]);
    await client.agents.files.close(pdf.id, { agent_id: agent.id });
    const open = [];
    for await (const f of client.agents.files.list(agent.id, { is_open: true }))
      open.push(f.file_name);
    expect(open).toEqual(["manuals/guide.md"]);

    await client.agents.folders.detach(folder.id, { agent_id: agent.id });
    const left = [];
    for await (const f of client.agents.files.list(agent.id)) left.push(f);
    expect(left).toEqual([]);
    const after = (await client.agents.retrieve(agent.id, { include: ["agent.tools"] })).tools.map(
      (t) => t.name,
    );
    expect(after).not.toContain("open_files");
  });

  it("keeps at most five files open, closing the least recently used", async () => {
    server = await startTestServer();
    const client = server.client();
    const folder = await client.folders.create({ name: "many" });
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) {
      const file = await client.folders.files.upload(folder.id, {
        file: await markdown(`f${i}.md`, `file ${i}`),
      });
      ids.push(file.id);
    }
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    const open = async () => {
      const names = [];
      for await (const f of client.agents.files.list(agent.id, { is_open: true }))
        names.push(f.file_name);
      return names.sort();
    };
    expect(await open()).toHaveLength(5);
    const shut = await client.agents.files.closeAll(agent.id);
    expect(shut).toHaveLength(5);
    for (const id of ids.slice(0, 5)) await client.agents.files.open(id, { agent_id: agent.id });
    expect(await client.agents.files.open(ids[5] as string, { agent_id: agent.id })).toEqual([
      "many/f1.md",
    ]);
    expect(await open()).toEqual([
      "many/f2.md",
      "many/f3.md",
      "many/f4.md",
      "many/f5.md",
      "many/f6.md",
    ]);
  });

  it("answers bad uploads and unknown ids with clear 4xx errors, and keeps projects apart", async () => {
    server = await startTestServer({
      tokens: new Map([
        ["key-a", "project-a"],
        ["key-b", "project-b"],
      ]),
    });
    const a = server.client("key-a");
    const b = server.client("key-b");
    const folder = await a.folders.create({ name: "docs" });
    const exe = await a.folders.files
      .upload(folder.id, {
        file: await toFile(Buffer.from([0x4d, 0x5a, 0, 1]), "tool.exe", {
          type: "application/octet-stream",
        }),
      })
      .catch((e: unknown) => e);
    expect(exe).toMatchObject({ status: 415 });
    const broken = await a.folders.files
      .upload(folder.id, {
        file: await toFile(Buffer.from("%PDF-1.4 not really"), "broken.pdf", {
          type: "application/pdf",
        }),
      })
      .catch((e: unknown) => e);
    expect(broken).toMatchObject({ status: 400, error: { errors: [{ path: "file" }] } });
    const duplicate = await a.folders.files.upload(folder.id, {
      file: await markdown("a.md", "one"),
    });
    const refused = await a.folders.files
      .upload(folder.id, { file: await markdown("a.md", "two"), duplicate_handling: "error" })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      status: 400,
      error: { errors: [{ path: "duplicate_handling" }] },
    });
    const files = [];
    for await (const f of a.folders.files.list(folder.id)) files.push(f.id);
    expect(files).toEqual([duplicate.id]);

    const badName = await a.folders.files
      .upload(folder.id, { file: await markdown("b.md", "x"), name: "b\nc.md" })
      .catch((e: unknown) => e);
    expect(badName).toMatchObject({ status: 422, error: { errors: [{ path: "name" }] } });
    expect(await a.folders.create({ name: "docs" }).catch((e: unknown) => e)).toMatchObject({
      status: 409,
    });
    expect(await b.folders.retrieve(folder.id).catch((e: unknown) => e)).toMatchObject({
      status: 404,
    });
    const other = await b.agents.create({ agent_type: "letta_v1_agent" });
    const cross = await b.agents.folders
      .attach(folder.id, { agent_id: other.id })
      .catch((e: unknown) => e);
    expect(cross).toMatchObject({ status: 404 });
    expect(await b.folders.create({ name: "docs" })).toMatchObject({ name: "docs" });
    const missing = await a.agents.files
      .open("file-none", { agent_id: other.id })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404 });
  });
});

describe("semantic_search_files with an embedding model (issue #15)", () => {
  it("finds a file's passage by meaning once the folder's chunks are embedded", async () => {
    const fake = await startFakeEmbeddingServer();
    try {
      const { model, seen } = scripted([
        { toolCalls: [{ name: "semantic_search_files", args: { query: "automobile", limit: 1 } }] },
      ]);
      server = await startTestServer({
        model,
        env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: fake.baseUrl },
      });
      const client = server.client();
      const folder = await client.folders.create({
        name: "notes",
        embedding: "openai/text-embedding-3-small",
      });
      await client.folders.files.upload(folder.id, {
        file: await markdown("commute.md", "I drive a red sedan to work"),
      });
      await client.folders.files.upload(folder.id, {
        file: await markdown("drinks.md", "Tea is better than juice"),
      });
      await server.engine.folderEmbedding.queue.settled();
      expect(fake.requests.flatMap((r) => r.input)).toEqual(
        expect.arrayContaining(["I drive a red sedan to work", "Tea is better than juice"]),
      );
      const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
      await client.agents.folders.attach(folder.id, { agent_id: agent.id });
      await client.agents.messages.create(agent.id, { input: "what do I drive?" });
      const result = seen[1]?.messages
        .flatMap((m) => (m.role === "tool" ? [m.content] : []))
        .at(-1);
      // No word of the query is in the file: only its vector can find it.
      expect(result).toContain("=== notes/commute.md (passage #1) ===");
      expect(result).toContain("I drive a red sedan to work");
      expect(result).not.toContain("Tea is better");
    } finally {
      await fake.close();
    }
  });
});
