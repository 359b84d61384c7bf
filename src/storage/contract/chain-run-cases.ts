import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/errors.js";
import type { ChainRunRecord } from "../../records/chain-run.js";
import { asc, type ContractContext, desc, ids, type StoreContractOptions } from "./fixtures.js";

export function chainRun(id: string, overrides: Partial<ChainRunRecord> = {}): ChainRunRecord {
  return {
    id,
    project_id: "project-1",
    chain: "investigate",
    input: "why is the disk full?",
    status: "running",
    stages: [
      {
        name: "research",
        status: "running",
        agents: [
          {
            name: "logs",
            role: "agent",
            agent_id: `agent-of-${id}`,
            agent_type: "researcher",
            status: "completed",
            run_id: "run-1",
            stop_reason: "end_turn",
            output: "the logs grew",
            output_source: "text",
            error: null,
            usage: { prompt_tokens: 3, completion_tokens: 2, step_count: 1 },
            started_at_ms: 1_000,
            ended_at_ms: 2_000,
          },
        ],
        synthesis: null,
        output: null,
        error: null,
        started_at_ms: 1_000,
        ended_at_ms: null,
      },
    ],
    pending_approvals: [],
    score: null,
    error: null,
    cancel_requested: false,
    usage: { prompt_tokens: 3, completion_tokens: 2, step_count: 1 },
    created_at_ms: 1_000,
    updated_at_ms: 2_000,
    completed_at_ms: null,
    ...overrides,
  };
}

/** Chain runs: written whole, read back exactly, listed by project and chain, found unfinished. */
export function chainRunCases(t: ContractContext, options: StoreContractOptions): void {
  describe("chain runs", () => {
    it("reads back exactly what was written, and a rewrite replaces it in its place", async () => {
      await t.store.putChainRun(chainRun("chain-1"));
      await t.store.putChainRun(chainRun("chain-2"));
      const done = chainRun("chain-1", { status: "completed", completed_at_ms: 9_000 });
      await t.store.putChainRun(done);
      expect(await t.store.getChainRun("chain-1")).toEqual(done);
      expect(await t.store.getChainRun("nope")).toBeNull();
      const all = await t.store.listChainRuns({ projectId: "project-1" }, asc());
      expect(ids(all)).toEqual(["chain-1", "chain-2"]);
    });

    it("refuses an invalid run and keeps the old one", async () => {
      await t.store.putChainRun(chainRun("chain-1"));
      const bad = { ...chainRun("chain-1"), status: "exploded" } as unknown as ChainRunRecord;
      await expect(t.store.putChainRun(bad)).rejects.toBeInstanceOf(ValidationError);
      expect((await t.store.getChainRun("chain-1"))?.status).toBe("running");
    });

    it("lists a project's runs by chain, paged both ways; other projects' cursors give nothing", async () => {
      await t.store.putChainRun(chainRun("c-1"));
      await t.store.putChainRun(chainRun("c-2", { chain: "review" }));
      await t.store.putChainRun(chainRun("c-3"));
      await t.store.putChainRun(chainRun("c-4", { project_id: "project-2" }));
      const mine = { projectId: "project-1" };
      expect(ids(await t.store.listChainRuns(mine, asc()))).toEqual(["c-1", "c-2", "c-3"]);
      expect(ids(await t.store.listChainRuns(mine, desc(2)))).toEqual(["c-3", "c-2"]);
      expect(ids(await t.store.listChainRuns(mine, asc(5, { after: "c-1" })))).toEqual([
        "c-2",
        "c-3",
      ]);
      expect(ids(await t.store.listChainRuns(mine, desc(5, { after: "c-3" })))).toEqual([
        "c-2",
        "c-1",
      ]);
      const investigate = { projectId: "project-1", chain: "investigate" };
      expect(ids(await t.store.listChainRuns(investigate, asc()))).toEqual(["c-1", "c-3"]);
      expect(await t.store.listChainRuns(investigate, asc(5, { after: "c-2" }))).toEqual([]);
      expect(await t.store.listChainRuns(mine, asc(5, { after: "c-4" }))).toEqual([]);
      expect(await t.store.listChainRuns(mine, asc(0))).toEqual([]);
    });

    it("finds the runs still running or awaiting approval, oldest first", async () => {
      await t.store.putChainRun(chainRun("c-1", { status: "awaiting_approval" }));
      await t.store.putChainRun(chainRun("c-2", { status: "completed" }));
      await t.store.putChainRun(chainRun("c-3"));
      await t.store.putChainRun(chainRun("c-4", { status: "failed" }));
      await t.store.putChainRun(chainRun("c-5", { status: "cancelled" }));
      expect(ids(await t.store.unfinishedChainRuns())).toEqual(["c-1", "c-3"]);
      await t.store.putChainRun(chainRun("c-1", { status: "completed" }));
      expect(ids(await t.store.unfinishedChainRuns())).toEqual(["c-3"]);
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps chain runs across close and reopen", async () => {
        await t.store.putChainRun(chainRun("c-1"));
        t.store = await reopen(t.store);
        expect(await t.store.getChainRun("c-1")).toEqual(chainRun("c-1"));
        expect(ids(await t.store.unfinishedChainRuns())).toEqual(["c-1"]);
      });
    }
  });
}
