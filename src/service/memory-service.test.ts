import { describe, expect, it } from "vitest";
import { serviceKit } from "../../test/support/service-kit.js";
import { ManualClock } from "../core/manual-clock.js";
import { createSimModel } from "../llm/sim/sim-model.js";
import { AgentService } from "./agent-service.js";
import { instantMs, MemoryService, type PassageSearchOptions } from "./memory-service.js";
import { MessageService } from "./message-service.js";

function setup() {
  const { ctx, model, clock } = serviceKit();
  const agents = new AgentService(ctx);
  const create = async (project = "p1", name = "keeper") =>
    (
      await agents.create(project, {
        name,
        memory_blocks: [
          { label: "persona", value: "a lighthouse keeper", limit: 100 },
          { label: "human", value: "unknown", limit: 50, read_only: true, description: "who" },
        ],
      })
    ).id;
  return {
    ctx,
    model,
    clock,
    create,
    memory: new MemoryService(ctx),
    messages: new MessageService(ctx),
  };
}

const page = { limit: 50, order: "asc" as const };
const search = (query: string, more: Partial<PassageSearchOptions> = {}) => ({
  query,
  topK: 10,
  tags: [],
  tagMatchMode: "any" as const,
  ...more,
});

describe("MemoryService blocks", () => {
  it("lists an agent's blocks and finds one by its label", async () => {
    const { memory, create } = setup();
    const id = await create();
    const blocks = await memory.listBlocks("p1", id, page);
    expect(blocks.map((block) => block.label)).toEqual(["persona", "human"]);
    expect(await memory.getBlock("p1", id, "human")).toMatchObject({
      label: "human",
      value: "unknown",
      limit: 50,
      read_only: true,
      description: "who",
    });
  });

  it("pages blocks with cursors so that a client's iteration ends", async () => {
    const { memory, create } = setup();
    const id = await create();
    const [first] = await memory.listBlocks("p1", id, { ...page, limit: 1 });
    const rest = await memory.listBlocks("p1", id, { ...page, after: first?.id });
    expect(rest.map((block) => block.label)).toEqual(["human"]);
    expect(await memory.listBlocks("p1", id, { ...page, after: rest[0]?.id })).toEqual([]);
  });

  it("reports an unknown label as not found, naming the labels the agent has", async () => {
    const { memory, create } = setup();
    const id = await create();
    await expect(memory.getBlock("p1", id, "tasks")).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "block label 'tasks' not found",
      known: ["persona", "human"],
    });
  });

  it("edits a read-only block's value and description through the API, keeping the rest", async () => {
    const { memory, create } = setup();
    const id = await create();
    const updated = await memory.updateBlock("p1", id, "human", {
      value: "Ada, who likes tea",
      description: "the person",
    });
    expect(updated).toMatchObject({ value: "Ada, who likes tea", limit: 50, read_only: true });
    expect(await memory.getBlock("p1", id, "human")).toEqual(updated);
  });

  it("rejects a value over the limit at `value` and changes nothing", async () => {
    const { memory, create } = setup();
    const id = await create();
    await expect(
      memory.updateBlock("p1", id, "human", { value: "x".repeat(51) }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "value" }] });
    await expect(
      memory.updateBlock("p1", id, "human", { value: "x".repeat(30), limit: 20 }),
    ).rejects.toMatchObject({ errors: [{ path: "value" }] });
    expect((await memory.getBlock("p1", id, "human")).value).toBe("unknown");
  });

  it("rejects a limit below the current value's length at `limit`", async () => {
    const { memory, create } = setup();
    const id = await create();
    await expect(memory.updateBlock("p1", id, "persona", { limit: 5 })).rejects.toMatchObject({
      errors: [{ path: "limit", message: expect.stringContaining("19 characters") }],
    });
    const raised = await memory.updateBlock("p1", id, "persona", {
      value: "y".repeat(150),
      limit: 200,
    });
    expect(raised).toMatchObject({ limit: 200, value: "y".repeat(150) });
  });

  it("shows an edited block to the agent's next turn", async () => {
    const { memory, messages, model, create } = setup();
    const id = await create();
    await messages.send("p1", id, { input: "hello" });
    await memory.updateBlock("p1", id, "persona", { value: "a keeper of bees" });
    await messages.send("p1", id, { input: "hello again" });
    expect(model.requests.at(-1)?.system).toContain("a keeper of bees");
    expect(model.requests.at(-1)?.system).not.toContain("a lighthouse keeper");
  });

  it("attaches another agent's block itself: an edit through either is the other's too", async () => {
    const { memory, create, ctx } = setup();
    const source = await create("p1", "source");
    const target = await create("p1", "target");
    await memory.updateBlock("p1", source, "persona", { value: "shared persona" });
    await ctx.store.detachBlock(target, "persona");
    const persona = await memory.getBlock("p1", source, "persona");

    const attached = await memory.attachBlock("p1", target, persona.id);
    const shared = attached.blocks.find((block) => block.label === "persona");
    expect(shared).toMatchObject({ id: persona.id, value: "shared persona" });
    await memory.updateBlock("p1", target, "persona", { value: "edited through target" });
    expect((await memory.getBlock("p1", source, "persona")).value).toBe("edited through target");

    const detached = await memory.detachBlock("p1", target, persona.id);
    expect(detached.blocks.map((block) => block.label)).toEqual(["human"]);
    expect((await memory.getBlock("p1", source, "persona")).value).toBe("edited through target");
  });

  it("refuses to attach a block whose label the agent has, or one of another project", async () => {
    const { memory, create } = setup();
    const first = await create("p1", "first");
    const second = await create("p1", "second");
    const stranger = await create("p2", "stranger");
    const persona = await memory.getBlock("p1", first, "persona");
    await expect(memory.attachBlock("p1", second, persona.id)).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const foreign = await memory.getBlock("p2", stranger, "persona");
    await expect(memory.attachBlock("p1", second, foreign.id)).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(memory.detachBlock("p1", second, persona.id)).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("MemoryService archival passages", () => {
  async function seeded() {
    const kit = setup();
    const id = await kit.create();
    const add = (text: string, tags: string[], created_at: string) =>
      kit.memory.insertPassage("p1", id, { text, tags, created_at });
    await add("the lighthouse keeper feeds the gulls", ["coast", "birds"], "2026-01-01T00:00:00Z");
    await add("gulls nest on cliffs", ["birds"], "2026-01-02T00:00:00Z");
    await add("a lighthouse on rocks", ["coast"], "2026-01-03T00:00:00Z");
    await add("tea and biscuits at four", [], "2026-01-04T00:00:00");
    return { ...kit, id };
  }

  it("inserts a passage with prefixed id, tags and the given creation time", async () => {
    const { memory, create, clock } = setup();
    const id = await create();
    const [dated] = await memory.insertPassage("p1", id, {
      text: "rain over the harbour",
      tags: ["coast", "coast"],
      created_at: "2025-06-01T12:00:00+02:00",
    });
    expect(dated).toMatchObject({
      id: expect.stringMatching(/^passage-/),
      text: "rain over the harbour",
      tags: ["coast"],
      agent_id: id,
      created_at: "2025-06-01T10:00:00.000Z",
    });
    const [now] = await memory.insertPassage("p1", id, { text: "fog" });
    expect(now?.created_at).toBe(new Date(clock.now()).toISOString());
  });

  it("lists oldest first by default, newest first when asked, and filters by words", async () => {
    const { memory, id } = await seeded();
    const texts = (list: { text: string }[]) => list.map((passage) => passage.text);
    const all = await memory.listPassages("p1", id, { limit: 100, ascending: true });
    expect(texts(all)[0]).toBe("the lighthouse keeper feeds the gulls");
    const newest = await memory.listPassages("p1", id, { limit: 2, ascending: false });
    expect(texts(newest)).toEqual(["tea and biscuits at four", "a lighthouse on rocks"]);
    const older = await memory.listPassages("p1", id, {
      limit: 10,
      ascending: false,
      after: newest[1]?.id,
    });
    expect(older).toHaveLength(2);
    const found = await memory.listPassages("p1", id, {
      limit: 10,
      ascending: true,
      search: "Lighthouse ROCKS",
    });
    expect(texts(found)).toEqual(["a lighthouse on rocks"]);
  });

  it("searches by text and filters by any or all tags and by creation time", async () => {
    const { memory, id } = await seeded();
    const ids = async (options: ReturnType<typeof search>) =>
      (await memory.searchPassages("p1", id, options)).results.map((r) => r.content);
    const plain = await memory.searchPassages("p1", id, search("lighthouse gulls"));
    expect(plain.count).toBe(3);
    expect(plain.results[0]).toEqual({
      id: expect.stringMatching(/^passage-/),
      content: "the lighthouse keeper feeds the gulls",
      timestamp: "2026-01-01T00:00:00.000Z",
      tags: ["coast", "birds"],
    });
    expect(await ids(search("lighthouse gulls", { topK: 1 }))).toHaveLength(1);
    const all = await ids(
      search("lighthouse gulls", { tags: ["coast", "birds"], tagMatchMode: "all" }),
    );
    expect(all).toEqual(["the lighthouse keeper feeds the gulls"]);
    const any = await ids(search("lighthouse gulls cliffs", { tags: ["birds", "none"] }));
    expect(any.sort()).toEqual(["gulls nest on cliffs", "the lighthouse keeper feeds the gulls"]);
    const ranged = await ids(
      search("lighthouse gulls", {
        startMs: instantMs("2026-01-02T00:00:00Z"),
        endMs: instantMs("2026-01-03"),
      }),
    );
    expect(ranged.sort()).toEqual(["a lighthouse on rocks", "gulls nest on cliffs"]);
  });

  it("deletes a passage once and then reports it not found", async () => {
    const { memory, id } = await seeded();
    const [first] = await memory.listPassages("p1", id, { limit: 1, ascending: true });
    await memory.deletePassage("p1", id, first?.id ?? "");
    await expect(memory.deletePassage("p1", id, first?.id ?? "")).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await memory.searchPassages("p1", id, search("keeper"))).count).toBe(0);
  });

  it("treats a date-time without an offset as UTC", () => {
    expect(instantMs("2026-01-04T00:00:00")).toBe(Date.UTC(2026, 0, 4));
    expect(instantMs("2026-01-04 01:30")).toBe(Date.UTC(2026, 0, 4, 1, 30));
    expect(instantMs("2026-01-04T00:00:00+0100")).toBe(Date.UTC(2026, 0, 3, 23));
    expect(instantMs("yesterday")).toBeNaN();
  });
});

describe("MemoryService tenancy", () => {
  it("answers every operation on another project's agent as not found", async () => {
    const { memory, create } = setup();
    const id = await create("p1");
    const notFound = { code: "NOT_FOUND", message: `agent '${id}' not found` };
    const calls = [
      memory.listBlocks("p2", id, page),
      memory.getBlock("p2", id, "persona"),
      memory.updateBlock("p2", id, "persona", { value: "stolen" }),
      memory.attachBlock("p2", id, "block-00000001"),
      memory.detachBlock("p2", id, "block-00000001"),
      memory.insertPassage("p2", id, { text: "x" }),
      memory.listPassages("p2", id, { limit: 10, ascending: true }),
      memory.searchPassages("p2", id, search("x")),
      memory.deletePassage("p2", id, "passage-00000001"),
    ];
    for (const call of calls) await expect(call).rejects.toMatchObject(notFound);
    expect((await memory.getBlock("p1", id, "persona")).value).toBe("a lighthouse keeper");
  });
});

describe("block edits during a turn", () => {
  // Regression (code review): an API edit made while a turn ran was overwritten when the turn
  // committed its whole staged block.
  it("applies an API edit after the turn in progress, so the turn cannot undo it", async () => {
    const clock = new ManualClock();
    const model = createSimModel({
      latency: { clock, ms: 1000 },
      script: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "noted" }
          : {
              toolCalls: [
                { name: "memory_insert", args: { label: "human", new_str: "likes tea" } },
              ],
            },
    });
    const { ctx, services } = serviceKit({ model, clock });
    const agent = await services.agents.create("p1", { agent_type: "letta_v1_agent" });
    const turn = services.messages.send("p1", agent.id, {
      messages: [{ role: "user", content: "hi" }],
    });
    await new Promise((resolve) => setImmediate(resolve));
    const edit = services.memory.updateBlock("p1", agent.id, "human", {
      value: "Name: Ada (set by operator)",
    });
    for (let i = 0; i < 5; i += 1) {
      clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([turn, edit]);
    const human = (await ctx.store.loadBlocks(agent.id)).find((b) => b.label === "human");
    expect(human?.value).toBe("Name: Ada (set by operator)");
  });
});
