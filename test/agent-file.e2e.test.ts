import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, "export and import of an agent file": an agent moves between servers in Letta's
// `.af` format with its memory, history, rules and tools, through Letta's official client.

type AnyFile = Record<string, unknown> & {
  agents: Array<Record<string, unknown> & { messages: Array<Record<string, unknown>> }>;
  tools: Array<Record<string, unknown>>;
  blocks: Array<Record<string, unknown>>;
};

const lettaFile = () =>
  JSON.parse(
    readFileSync(new URL("./fixtures/letta/basic-agent-v2.af", import.meta.url), "utf8"),
  ) as AnyFile;

const upload = (file: unknown) =>
  new File([JSON.stringify(file)], "agent.af", { type: "application/json" });

type Loose = { message_type: string; content?: unknown; tool_return?: unknown };
const shape = (messages: readonly unknown[]) =>
  (messages as Loose[]).map((m) => [m.message_type, m.content ?? m.tool_return ?? null]);

let source: Awaited<ReturnType<typeof startTestServer>>;
let target: { url: string; process: import("node:child_process").ChildProcess };
let targetDir: string;
let into: Letta;

beforeAll(async () => {
  source = await startTestServer();
  targetDir = mkdtempSync(join(tmpdir(), "holdfast-import-"));
  // A second server process over a fresh data directory: nothing is shared but the file.
  target = await startServer(["--port", "0", "--data-dir", targetDir], {
    env: { HOLDFAST_MODEL: "sim/demo", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" },
  });
  into = new Letta({ baseURL: target.url, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await source?.close();
  if (target) await stopServer(target.process);
  rmSync(targetDir, { recursive: true, force: true });
});

describe("agent files (issue #15)", () => {
  it("moves an agent to a fresh server with the same memory, history, rules and tools", async () => {
    const from = source.client();
    const agent = await from.agents.create({
      name: "travelling",
      agent_type: "letta_v1_agent",
      memory_blocks: [
        { label: "human", value: "Name: Ada", limit: 2000 },
        {
          label: "persona",
          value: "A careful helper.",
          description: "who I am",
          tags: ["core"],
          metadata: { owner: "ops" },
        },
      ],
      tool_rules: [{ type: "max_count_per_step", tool_name: "memory_insert", max_count_limit: 2 }],
      tags: ["moving"],
      metadata: { team: "blue" },
    });
    await from.agents.messages.create(agent.id, { input: "remember I like green tea" });
    await from.agents.messages.create(agent.id, { input: "the kestrel flies at dawn" });
    const history = (await from.agents.messages.list(agent.id, { order: "asc", limit: 100 })).items;

    const file = (await from.agents.exportFile(agent.id)) as unknown as AnyFile;
    expect(file.agents).toHaveLength(1);
    expect(file.agents[0]?.messages[0]).toMatchObject({ role: "system" });
    expect(file.tools.map((t) => t.name)).toEqual(agent.tools.map((t) => t.name));
    expect(JSON.stringify(file)).not.toContain(agent.id);

    const imported = await into.agents.importFile({ file: upload(file) });
    expect(imported.agent_ids).toHaveLength(1);
    const id = imported.agent_ids[0] as string;
    expect(id).not.toBe(agent.id);

    const moved = await into.agents.retrieve(id);
    const before = await from.agents.retrieve(agent.id);
    const blocks = (a: typeof moved) =>
      a.blocks
        .map((b) => [b.label, b.value, b.limit, b.description, b.tags ?? [], b.metadata ?? {}])
        .sort();
    expect(blocks(moved)).toEqual(blocks(before));
    expect(moved.blocks.find((b) => b.label === "human")?.value).toContain("green tea");
    expect(moved.tool_rules).toEqual(before.tool_rules);
    expect(moved.tools.map((t) => t.name).sort()).toEqual(before.tools.map((t) => t.name).sort());
    expect([moved.name, moved.tags, moved.metadata]).toEqual([
      "travelling",
      ["moving"],
      { team: "blue" },
    ]);
    const movedHistory = (await into.agents.messages.list(id, { order: "asc", limit: 100 })).items;
    expect(shape(movedHistory)).toEqual(shape(history));
    expect(movedHistory.every((m) => !history.some((h) => h.id === m.id))).toBe(true);

    // Chatting with it: the memory answers, and the imported history is searchable.
    const asked = await into.agents.messages.create(id, { input: "what do you know about me?" });
    expect(JSON.stringify(asked.messages)).toContain("green tea");
    const searched = await into.agents.messages.create(id, { input: "search kestrel" });
    const found = (searched.messages as Loose[]).find(
      (m) => m.message_type === "tool_return_message",
    );
    expect(String(found?.tool_return)).toContain("kestrel flies at dawn");
  });

  it("exports without history when asked (scrub_messages) and imports without it (strip_messages)", async () => {
    const from = source.client();
    const agent = await from.agents.create({ agent_type: "letta_v1_agent" });
    await from.agents.messages.create(agent.id, { input: "hello" });
    const scrubbed = (await from.agents.exportFile(agent.id, {
      scrub_messages: true,
    })) as unknown as AnyFile;
    expect(scrubbed.agents[0]?.messages.map((m) => m.role)).toEqual(["system"]);
    const full = await from.agents.exportFile(agent.id);
    const { agent_ids } = await into.agents.importFile({
      file: upload(full),
      strip_messages: true,
      name: "renamed",
    });
    const id = agent_ids[0] as string;
    expect((await into.agents.retrieve(id)).name).toBe("renamed");
    expect((await into.agents.messages.list(id)).items).toEqual([]);
  });

  it("reads a file Letta wrote and reports every part it cannot honour at its path, creating nothing", async () => {
    const before = (await into.agents.list({ limit: 1000 })).items.length;
    const file = lettaFile();
    const error = await into.agents.importFile({ file: upload(file) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Letta.UnprocessableEntityError);
    const errors = (error as { error: { errors: { path: string; message: string }[] } }).error
      .errors;
    const python = file.tools.flatMap((t, i) =>
      t.tool_type === "custom" ? [`tools.${i}.source_code`] : [],
    );
    expect(python.length).toBeGreaterThan(0);
    const paths = errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining([...python, "agents.0.agent_type"]));
    const advice = errors.find((e) => e.path === python[0])?.message ?? "";
    expect(advice).toMatch(/MCP server/);
    expect(advice).toMatch(/client tool/);
    expect((await into.agents.list({ limit: 1000 })).items.length).toBe(before);
  });

  it("imports Letta's file once its Python tools are left out, with Letta's history and blocks", async () => {
    const file = lettaFile();
    const keep = new Set(["conversation_search", "send_message"]);
    const kept = file.tools.filter((t) => keep.has(String(t.name)));
    const agent = file.agents[0] as AnyFile["agents"][number];
    Object.assign(agent, {
      agent_type: "memgpt_agent",
      tool_ids: kept.map((t) => t.id),
      tool_rules: [{ type: "exit_loop", tool_name: "send_message" }],
    });
    file.tools = kept;
    const { agent_ids } = await into.agents.importFile({ file: upload(file), model: "sim/demo" });
    const id = agent_ids[0] as string;
    const state = await into.agents.retrieve(id);
    expect(state.model).toBe("sim/demo");
    expect(state.blocks.map((b) => b.label).sort()).toEqual(
      file.blocks.map((b) => String(b.label)).sort(),
    );
    const messages = (await into.agents.messages.list(id, { order: "asc", limit: 100 }))
      .items as Loose[];
    // Letta's compiled system prompt (its first message) is not history: Holdfast compiles its own.
    expect(messages.some((m) => m.message_type === "system_message")).toBe(false);
    // As Letta shows it: inner thoughts, then send_message calls as the assistant's replies.
    expect(messages.map((m) => m.message_type)).toEqual([
      "reasoning_message",
      "assistant_message",
      "user_message",
      "user_message",
      "reasoning_message",
      "assistant_message",
    ]);
    expect(messages[1]?.content).toBe("More human than human is our motto.");
    expect(messages[2]?.content).toContain("login");
    expect(messages[3]?.content).toBe("Test message for export");
    const reply = await into.agents.messages.create(id, { input: "hello again" });
    expect((reply.messages as Loose[]).map((m) => m.message_type)).toContain("assistant_message");
  });

  it("refuses groups, naming chains, and a corrupted file with Letta's 400", async () => {
    const from = source.client();
    const agent = await from.agents.create({ agent_type: "letta_v1_agent" });
    const file = (await from.agents.exportFile(agent.id)) as unknown as AnyFile;
    const grouped = { ...file, groups: [{ id: "group-0", agent_ids: ["agent-0"] }] };
    const error = await into.agents.importFile({ file: upload(grouped) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Letta.UnprocessableEntityError);
    expect(JSON.stringify((error as { error: unknown }).error)).toMatch(/"path":"groups".*chain/);
    const corrupt = new File(["{not json"], "agent.af");
    await expect(into.agents.importFile({ file: corrupt })).rejects.toBeInstanceOf(
      Letta.BadRequestError,
    );
  });
});
