import { describe, expect, it } from "vitest";
import { serviceKit } from "../../test/support/service-kit.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { AgentService } from "./agent-service.js";
import { ListQuery } from "./requests.js";
import { ToolService } from "./tool-service.js";

const PROJECT = "default";
const page = (query: Partial<ListQuery> = {}) => ListQuery.parse(query);

function kit() {
  const { ctx, store, clock } = serviceKit();
  const agents = new AgentService(ctx);
  const tools = new ToolService(ctx);
  const create = async (agent_type = "letta_v1_agent") =>
    (await agents.create(PROJECT, { agent_type })).id;
  return { agents, tools, store, clock, create };
}

const names = (list: readonly { name: string }[]) => list.map((tool) => tool.name);

describe("ToolService", () => {
  it("lists the whole catalogue with stable tool- ids, paged by cursor", () => {
    const { tools } = kit();
    const all = tools.list(page({ order: "asc", limit: 1000 }));
    expect(all.map((tool) => tool.id)).toContain("tool-memory_insert");
    expect(all.every((tool) => tool.id === `tool-${tool.name}`)).toBe(true);

    const first = tools.list(page({ order: "asc", limit: 3 }));
    const second = tools.list(page({ order: "asc", limit: 3, after: first.at(-1)?.id }));
    expect([...names(first), ...names(second)]).toEqual(names(all).slice(0, 6));
    expect(tools.list(page({ after: all[0]?.id, order: "asc", limit: 1000 }))).toHaveLength(
      all.length - 1,
    );
  });

  it("filters the catalogue by exact name and by a part of the name", () => {
    const { tools } = kit();
    expect(names(tools.list(page(), { name: "shell" }))).toEqual(["shell"]);
    expect(names(tools.list(page({ order: "asc" }), { search: "ARCHIVAL" }))).toEqual([
      "archival_memory_insert",
      "archival_memory_search",
    ]);
  });

  it("finds one tool by id and reports an unknown id as not found", () => {
    const { tools } = kit();
    expect(tools.get("tool-send_message")).toMatchObject({ name: "send_message" });
    expect(() => tools.get("tool-nope")).toThrow(NotFoundError);
  });

  it("refuses custom tools with a validation error that explains why", () => {
    const { tools } = kit();
    expect(() => tools.refuseCustom()).toThrow(/not supported by Holdfast/);
    expect(() => tools.refuseCustom("tool-shell")).toThrow(ValidationError);
    expect(() => tools.refuseCustom("tool-ghost")).toThrow(NotFoundError);
  });

  it("lists the tools an agent is offered by its type", async () => {
    const { tools, create } = kit();
    const id = await create();
    const offered = await tools.listForAgent(PROJECT, id, page({ order: "asc" }));
    expect(names(offered)).toEqual(["memory_insert", "memory_replace", "conversation_search"]);
    expect(offered.every((tool) => tool.default_requires_approval === false)).toBe(true);
  });

  it("attaches a tool within the type's ceiling and persists the change", async () => {
    const { tools, store, clock, create } = kit();
    const id = await create();
    clock.advance(5000);
    const state = await tools.attach(PROJECT, id, "tool-archival_memory_insert");
    expect(names(state.tools)).toContain("archival_memory_insert");
    const record = await store.getAgent(id);
    expect(record?.overrides).toMatchObject({ tools: { include: ["archival_memory_insert"] } });
    expect(record?.updated_at_ms).toBe(clock.now());
  });

  it("attaches a tool to an agent created without base tools, widening only its own allow list", async () => {
    const { agents, tools } = kit();
    const { id } = await agents.create(PROJECT, {
      agent_type: "letta_v1_agent",
      tools: ["memory_insert"],
      include_base_tools: false,
    });
    const state = await tools.attach(PROJECT, id, "tool-conversation_search");
    expect(names(state.tools).sort()).toEqual(["conversation_search", "memory_insert"]);
  });

  it("rejects a tool the agent type does not allow, saying why", async () => {
    const { tools, store, create } = kit();
    const id = await create();
    const attempt = tools.attach(PROJECT, id, "tool-shell");
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(attempt).rejects.toThrow(/risk 'exec' is beyond access 'constrained'/);
    expect((await store.getAgent(id))?.overrides).toEqual({});
  });

  it("reports an unknown tool or agent as not found", async () => {
    const { tools, create } = kit();
    const id = await create();
    await expect(tools.attach(PROJECT, id, "tool-ghost")).rejects.toThrow(NotFoundError);
    await expect(tools.attach(PROJECT, "agent-ghost", "tool-shell")).rejects.toThrow(NotFoundError);
    await expect(tools.attach("other", id, "tool-web_search")).rejects.toThrow(NotFoundError);
  });

  it("detaches a tool that comes with the type, and attaches it back", async () => {
    const { tools, store, create } = kit();
    const id = await create();
    const detached = await tools.detach(PROJECT, id, "tool-memory_replace");
    expect(names(detached.tools)).toEqual(["memory_insert", "conversation_search"]);
    expect((await store.getAgent(id))?.overrides).toMatchObject({
      tools: { deny: ["memory_replace"] },
    });

    const back = await tools.attach(PROJECT, id, "tool-memory_replace");
    expect(names(back.tools)).toContain("memory_replace");
    expect((await store.getAgent(id))?.overrides).toEqual({});
  });

  it("detaching an attached tool removes it from include as well", async () => {
    const { tools, store, create } = kit();
    const id = await create();
    await tools.attach(PROJECT, id, "tool-web_fetch");
    await tools.detach(PROJECT, id, "tool-web_fetch");
    expect((await store.getAgent(id))?.overrides).toEqual({
      tools: { deny: ["web_fetch"] },
    });
  });

  it("adds one requires_approval rule however often it is set, and removes it", async () => {
    const { tools, store, create } = kit();
    const id = await create();
    await tools.setApproval(PROJECT, id, "memory_insert", true);
    const state = await tools.setApproval(PROJECT, id, "memory_insert", true);
    expect((await store.getAgent(id))?.tool_rules).toEqual([
      { type: "requires_approval", tool_name: "memory_insert" },
    ]);
    expect(state.tools.find((t) => t.name === "memory_insert")?.default_requires_approval).toBe(
      true,
    );
    const listed = await tools.listForAgent(PROJECT, id, page());
    expect(listed.find((t) => t.name === "memory_insert")?.default_requires_approval).toBe(true);

    const off = await tools.setApproval(PROJECT, id, "memory_insert", false);
    expect((await store.getAgent(id))?.tool_rules).toEqual([]);
    expect(off.tools.find((t) => t.name === "memory_insert")?.default_requires_approval).toBe(
      false,
    );
  });

  // Issue #16, point 8: turning off approval the type requires answered 200 and was ignored.
  it("refuses to turn off approval the type's policy requires, naming the policy", async () => {
    const { tools, store, create } = kit();
    const id = await create("developer");
    const before = (await store.getAgent(id))?.tool_rules;
    const refused = await tools.setApproval(PROJECT, id, "shell", false).catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.message).toBe(
      "agent type 'developer' requires approval for 'shell' (tools.approval: per_action); an agent may not loosen it",
    );
    expect(refused.errors).toEqual([{ path: "body_requires_approval", message: refused.message }]);
    expect((await store.getAgent(id))?.tool_rules).toEqual(before);

    const on = await tools.setApproval(PROJECT, id, "shell", true);
    expect(on.tools.find((t) => t.name === "shell")?.default_requires_approval).toBe(true);
    await expect(tools.setApproval(PROJECT, id, "shell", false)).rejects.toThrow(/may not loosen/);
    // A read tool needs no approval under the policy, so the agent's own rule can come and go.
    await tools.setApproval(PROJECT, id, "read_file", true);
    const off = await tools.setApproval(PROJECT, id, "read_file", false);
    expect(off.tools.find((t) => t.name === "read_file")?.default_requires_approval).toBe(false);
  });

  it("refuses to require approval for a tool the agent is not offered", async () => {
    const { tools, create } = kit();
    const id = await create();
    await expect(tools.setApproval(PROJECT, id, "web_search", true)).rejects.toThrow(
      /not attached/,
    );
    await expect(tools.setApproval(PROJECT, id, "ghost", true)).rejects.toThrow(NotFoundError);
  });
});

describe("concurrent changes to one agent", () => {
  // Regression (code review): each change read the record, then wrote it back whole; two at
  // once lost one of them.
  it("keeps both of two changes made at the same time", async () => {
    const { tools, store, create } = kit();
    const id = await create();
    await Promise.all([
      tools.detach(PROJECT, id, "tool-memory_insert"),
      tools.setApproval(PROJECT, id, "memory_replace", true),
    ]);
    const record = await store.getAgent(id);
    expect(record?.overrides).toMatchObject({ tools: { deny: ["memory_insert"] } });
    expect(record?.tool_rules).toEqual([
      { type: "requires_approval", tool_name: "memory_replace" },
    ]);
  });
});
