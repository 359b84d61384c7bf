import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentRecord } from "../../records/agent-record.js";
import type { CoreBlock } from "../../records/memory-records.js";
import { passesAgentFilter } from "../agent-list-filter.js";
import type { PageQuery } from "../store.js";
import {
  agentRecord,
  asc,
  block,
  type ContractContext,
  desc,
  ids,
  passage,
  run,
  step,
  userMessage,
} from "./fixtures.js";

/** Agents, their listing by project and paging, and blocks outside a turn. */
export function agentCases(t: ContractContext): void {
  describe("agents", () => {
    it("creates an agent with its blocks and reads both back", async () => {
      const id = await t.createAgent();
      expect(await t.store.getAgent(id)).toEqual(agentRecord(id));
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human")]);
    });

    it("returns null for an agent that does not exist", async () => {
      expect(await t.store.getAgent("agent-missing")).toBeNull();
    });

    it("rejects an existing id as a conflict and leaves the first agent untouched", async () => {
      const id = await t.createAgent();
      const again = { ...agentRecord(id), name: "impostor" };
      await expect(
        t.store.createAgent({ agent: again, blocks: [block("persona", "other"), block("extra")] }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      expect(await t.store.getAgent(id)).toEqual(agentRecord(id));
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human")]);
    });

    it("rejects an agent with an invalid block and creates nothing of it", async () => {
      const bad = { ...block("human"), limit: 0 };
      await expect(
        t.store.createAgent({ agent: agentRecord("agent-bad"), blocks: [block("persona"), bad] }),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      expect(await t.store.getAgent("agent-bad")).toBeNull();
      expect(await t.store.loadBlocks("agent-bad")).toEqual([]);
      expect(await t.store.listAgents("project-1", asc())).toEqual([]);
    });

    it("rejects an agent with two blocks of one label and creates nothing", async () => {
      await expect(
        t.store.createAgent({ agent: agentRecord("agent-2"), blocks: [block("a"), block("a")] }),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      expect(await t.store.getAgent("agent-2")).toBeNull();
    });

    it("creates an agent with a history it starts with, searchable and listed in order", async () => {
      const history = [
        userMessage("message-i1", "hello kestrel"),
        userMessage("message-i2", "two"),
      ];
      await t.store.createAgent({
        agent: agentRecord("agent-imported"),
        blocks: [block("persona")],
        messages: history,
      });
      expect(ids(await t.store.listMessages("agent-imported", asc()))).toEqual([
        "message-i1",
        "message-i2",
      ]);
      expect(await t.store.countMessages("agent-imported")).toBe(2);
      const hits = await t.store.searchMessages("agent-imported", "kestrel", { limit: 5 });
      expect(hits.map((hit) => hit.id)).toEqual(["message-i1"]);
    });

    it("rejects a history message whose id is taken and creates nothing of the agent", async () => {
      const id = await t.createAgent();
      await t.store.commit(step(id, { messages: [userMessage("message-taken", "first")] }));
      await expect(
        t.store.createAgent({
          agent: agentRecord("agent-late"),
          blocks: [block("persona")],
          messages: [userMessage("message-new", "a"), userMessage("message-taken", "b")],
        }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      expect(await t.store.getAgent("agent-late")).toBeNull();
      expect(await t.store.listMessages("agent-late", asc())).toEqual([]);
      expect(await t.store.loadBlocks("agent-late")).toEqual([]);
    });

    it("replaces an agent's record on update and keeps its blocks", async () => {
      const id = await t.createAgent();
      const updated = { ...agentRecord(id), name: "renamed", updated_at_ms: 5_000 };
      await t.store.updateAgent(updated);
      expect(await t.store.getAgent(id)).toEqual(updated);
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human")]);
    });

    it("rejects updating an agent that does not exist", async () => {
      await expect(t.store.updateAgent(agentRecord("agent-missing"))).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      expect(await t.store.getAgent("agent-missing")).toBeNull();
    });

    it("keeps its own copies: changing objects written or read changes nothing stored", async () => {
      const record = agentRecord("agent-copy");
      const blocks = [block("persona")];
      await t.store.createAgent({ agent: record, blocks });
      record.name = "changed";
      (record.metadata.nested as { list: number[] }).list.push(4);
      (blocks[0] as CoreBlock).value = "changed";
      const read = (await t.store.getAgent("agent-copy")) as AgentRecord;
      read.tags.push("changed");
      const [first] = await t.store.loadBlocks("agent-copy");
      (first as CoreBlock).value = "changed again";
      expect(await t.store.getAgent("agent-copy")).toEqual(agentRecord("agent-copy"));
      expect(await t.store.loadBlocks("agent-copy")).toEqual([block("persona")]);
    });

    it("deletes an agent with its blocks, messages, passages, session, runs and timers", async () => {
      const id = await t.createAgent();
      const other = await t.createAgent();
      for (const agentId of [id, other]) {
        await t.store.commit(
          step(agentId, {
            messages: [userMessage(t.fresh("message"), "remember the lighthouse")],
            memory: { blocks: [], passages: [passage(t.fresh("passage"), "lighthouse notes")] },
            run: run(`run-of-${agentId}`, agentId, `key-of-${agentId}`),
          }),
        );
        await t.store.putTimer({ agent_id: agentId, kind: "wake", due_at_ms: 10 });
      }
      expect(await t.store.deleteAgent(id)).toBe(true);

      expect(await t.store.getAgent(id)).toBeNull();
      expect(await t.store.loadBlocks(id)).toEqual([]);
      expect(await t.store.recentMessages(id, 10)).toEqual([]);
      expect(await t.store.countMessages(id)).toBe(0);
      expect(await t.store.searchMessages(id, "lighthouse", { limit: 10 })).toEqual([]);
      expect(await t.store.listPassages(id, asc())).toEqual([]);
      expect(await t.store.searchPassages(id, "lighthouse", { topK: 10 })).toEqual([]);
      expect(await t.store.loadSession(id)).toBeNull();
      expect(await t.store.interruptedSessions()).toEqual([other]);
      expect(await t.store.getRun(`run-of-${id}`)).toBeNull();
      expect(await t.store.findRunByKey(id, `key-of-${id}`)).toBeNull();
      expect(await t.store.dueTimers(100)).toEqual([
        { agent_id: other, kind: "wake", due_at_ms: 10 },
      ]);
      expect(await t.store.searchPassages(other, "lighthouse", { topK: 10 })).toHaveLength(1);
      expect(await t.store.countMessages(other)).toBe(1);
    });

    it("creates an agent afresh under the id of a deleted one", async () => {
      const id = await t.createAgent();
      await t.say(id, "hello");
      await t.store.deleteAgent(id);
      await t.createAgent(id);
      expect(await t.store.countMessages(id)).toBe(0);
      expect(await t.store.loadSession(id)).toBeNull();
    });

    it("answers false when deleting an agent that does not exist", async () => {
      expect(await t.store.deleteAgent("agent-missing")).toBe(false);
    });

    it("lists only the agents of the given project", async () => {
      const a = await t.createAgent(t.fresh("agent"), "project-a");
      await t.createAgent(t.fresh("agent"), "project-b");
      const c = await t.createAgent(t.fresh("agent"), "project-a");
      expect(ids(await t.store.listAgents("project-a", asc()))).toEqual([a, c]);
      expect(await t.store.listAgents("project-none", asc())).toEqual([]);
    });
  });

  describe("paging", () => {
    /** Five agents, five messages of one agent, or five runs of a project's agents, in order. */
    type Lister = (page: PageQuery) => Promise<{ id: string }[]>;
    const listers: [string, () => Promise<{ made: string[]; list: Lister }>][] = [
      [
        "agents",
        async () => {
          const project = t.fresh("project");
          const made: string[] = [];
          for (let i = 0; i < 5; i++) made.push(await t.createAgent(t.fresh("agent"), project));
          return { made, list: (page) => t.store.listAgents(project, page) };
        },
      ],
      [
        "messages",
        async () => {
          const agentId = await t.createAgent();
          const made = await t.say(agentId, "one", "two", "three", "four", "five");
          return { made, list: (page) => t.store.listMessages(agentId, page) };
        },
      ],
      [
        "runs",
        async () => {
          const projectId = t.fresh("project");
          const agents = [await t.createAgent(t.fresh("agent"), projectId)];
          agents.push(await t.createAgent(t.fresh("agent"), projectId));
          const made: string[] = [];
          // Two agents' runs interleaved, with ids against creation order: one list, by creation.
          for (const [i, agentId] of [...agents, ...agents, ...agents].slice(0, 5).entries()) {
            made.push(`run-${9 - i}-${t.fresh("r")}`);
            await t.store.putRun(run(made[i] as string, agentId));
          }
          return { made, list: (page) => t.store.listRuns({ projectId }, page) };
        },
      ],
    ];

    for (const [what, make] of listers) {
      it(`pages ${what} in creation order, ascending or descending, up to the limit`, async () => {
        const { made, list } = await make();
        const [a, b, c, d, e] = made as [string, string, string, string, string];
        expect(ids(await list(asc()))).toEqual([a, b, c, d, e]);
        expect(ids(await list(desc()))).toEqual([e, d, c, b, a]);
        expect(ids(await list(asc(2)))).toEqual([a, b]);
        expect(ids(await list(desc(2)))).toEqual([e, d]);
      });

      it(`reads after and before cursors of ${what} relative to the order`, async () => {
        const { made, list } = await make();
        const [a, b, c, d, e] = made as [string, string, string, string, string];
        expect(ids(await list(asc(2, { after: b })))).toEqual([c, d]);
        expect(ids(await list(asc(10, { before: c })))).toEqual([a, b]);
        expect(ids(await list(desc(2, { after: d })))).toEqual([c, b]);
        expect(ids(await list(desc(10, { before: c })))).toEqual([e, d]);
        expect(ids(await list(asc(10, { after: a, before: e })))).toEqual([b, c, d]);
        expect(ids(await list(desc(10, { after: e, before: a })))).toEqual([d, c, b]);
        expect(ids(await list(asc(10, { after: e })))).toEqual([]);
        expect(ids(await list(asc(10, { after: d, before: b })))).toEqual([]);
      });

      it(`gives an empty page of ${what} for an unknown cursor or a limit of zero`, async () => {
        const { made, list } = await make();
        expect(await list(asc(10, { after: "unknown" }))).toEqual([]);
        expect(await list(desc(10, { before: "unknown" }))).toEqual([]);
        expect(await list(asc(0))).toEqual([]);
        expect(made).toHaveLength(5);
      });
    }

    it("scopes cursors to the list: an agent of another project is an unknown cursor", async () => {
      const elsewhere = await t.createAgent(t.fresh("agent"), "project-b");
      await t.createAgent(t.fresh("agent"), "project-a");
      expect(await t.store.listAgents("project-a", asc(10, { after: elsewhere }))).toEqual([]);
    });

    it("filters agents by name, a part of it in any case, and tags before paging", async () => {
      const names = ["Ärger", "ärger-2", "bob", "BOB jr", "Ada"];
      const tags = ["red", "blue", "green"];
      const agents = fc.array(
        fc.record({
          name: fc.constantFrom(...names),
          tags: fc.uniqueArray(fc.constantFrom(...tags), { maxLength: 3 }),
        }),
        { maxLength: 8 },
      );
      const filter = fc.record(
        {
          name: fc.constantFrom(...names),
          nameContains: fc.constantFrom("är", "ÄR", "bob", "o", "zzz", ""),
          tags: fc.array(fc.constantFrom(...tags), { maxLength: 3 }),
          matchAllTags: fc.boolean(),
        },
        { requiredKeys: [] },
      );
      const settings = fc.record({
        agents,
        filter,
        limit: fc.integer({ min: 1, max: 4 }),
        order: fc.constantFrom("asc" as const, "desc" as const),
      });
      await fc.assert(
        fc.asyncProperty(settings, async ({ agents, filter, limit, order }) => {
          const project = t.fresh("project");
          const made: string[] = [];
          for (const { name, tags } of agents) {
            const id = t.fresh("agent");
            await t.store.createAgent({
              agent: { ...agentRecord(id, project), name, tags },
              blocks: [],
            });
            made.push(id);
          }
          const wanted = agents
            .map((agent, i) => ({ ...agent, id: made[i] as string }))
            .filter((agent) => passesAgentFilter(agent, filter))
            .map((agent) => agent.id);
          const seen: string[] = [];
          let after: string | undefined;
          for (let pages = 0; pages <= agents.length + 1; pages++) {
            const page = ids(await t.store.listAgents(project, { order, limit, after }, filter));
            expect(page.length).toBeLessThanOrEqual(limit);
            if (page.length === 0) break;
            seen.push(...page);
            after = page.at(-1);
          }
          expect(seen).toEqual(order === "asc" ? wanted : [...wanted].reverse());
        }),
        { numRuns: 25 },
      );
    });

    it("pages a filtered list from a cursor that does not pass the filter", async () => {
      const project = t.fresh("project");
      const make = async (name: string) => {
        const id = t.fresh("agent");
        await t.store.createAgent({ agent: { ...agentRecord(id, project), name }, blocks: [] });
        return id;
      };
      const [first, other, last] = [await make("keep"), await make("other"), await make("keep")];
      const filter = { name: "keep" };
      expect(ids(await t.store.listAgents(project, asc(10, { after: other }), filter))).toEqual([
        last,
      ]);
      expect(ids(await t.store.listAgents(project, desc(10, { after: other }), filter))).toEqual([
        first,
      ]);
    });

    it("visits every agent exactly once when paging with after=<last id>", async () => {
      const settings = fc.record({
        count: fc.integer({ min: 0, max: 12 }),
        limit: fc.integer({ min: 1, max: 5 }),
        order: fc.constantFrom("asc" as const, "desc" as const),
      });
      await fc.assert(
        fc.asyncProperty(settings, async ({ count, limit, order }) => {
          const project = t.fresh("project");
          const made: string[] = [];
          for (let i = 0; i < count; i++) made.push(await t.createAgent(t.fresh("agent"), project));
          const seen: string[] = [];
          let after: string | undefined;
          for (let pages = 0; pages <= count + 1; pages++) {
            const page = ids(await t.store.listAgents(project, { order, limit, after }));
            expect(page.length).toBeLessThanOrEqual(limit);
            if (page.length === 0) break;
            seen.push(...page);
            after = page.at(-1);
          }
          expect(seen).toEqual(order === "asc" ? made : [...made].reverse());
        }),
        { numRuns: 25 },
      );
    });
  });

  describe("blocks", () => {
    it("inserts a new block and replaces one of the same label in place", async () => {
      const id = await t.createAgent();
      await t.store.putBlock(id, block("tasks", "none yet"));
      await t.store.putBlock(id, block("persona", "a keeper of lighthouses"));
      expect(await t.store.loadBlocks(id)).toEqual([
        block("persona", "a keeper of lighthouses"),
        block("human"),
        block("tasks", "none yet"),
      ]);
    });

    it("detaches a block by label and answers whether there was one", async () => {
      const id = await t.createAgent();
      expect(await t.store.detachBlock(id, "human")).toBe(true);
      expect(await t.store.detachBlock(id, "human")).toBe(false);
      expect(await t.store.loadBlocks(id)).toEqual([block("persona")]);
    });

    it("rejects a block for an agent that does not exist, and an invalid block", async () => {
      const id = await t.createAgent();
      await expect(t.store.putBlock("agent-missing", block("x"))).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      await expect(t.store.putBlock(id, { ...block("x"), limit: -1 })).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
      });
      expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human")]);
    });
  });
}
