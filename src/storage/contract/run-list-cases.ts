import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../records/agent-record.js";
import { agentRecord, asc, type ContractContext, desc, ids, run } from "./fixtures.js";

const STATUSES = ["running", "completed", "failed", "cancelled"] as const;

/** A run of `agentId` with this status, ended unless it is running. */
function runIn(id: string, agentId: string, status: RunRecord["status"]): RunRecord {
  const ended = status === "running" ? null : 5_000;
  return { ...run(id, agentId), status, completed_at_ms: ended, stop_reason: ended && "end_turn" };
}

/** `GET /v1/runs`: a project's runs filtered by agent and status, paged by cursors. */
export function runListCases(t: ContractContext): void {
  describe("listing runs", () => {
    it("lists ended runs with active false, and applies statuses and active together", async () => {
      const a = await t.createAgent();
      await t.store.putRun(runIn("run-1", a, "completed"));
      await t.store.putRun(runIn("run-2", a, "running"));
      await t.store.putRun(runIn("run-3", a, "failed"));
      await t.store.putRun(runIn("run-4", a, "cancelled"));
      const list = async (filter: { active?: boolean; statuses?: string[] }) =>
        ids(await t.store.listRuns({ projectId: "project-1", ...filter }, asc()));
      expect(await list({ active: false })).toEqual(["run-1", "run-3", "run-4"]);
      expect(await list({ statuses: ["failed", "running"] })).toEqual(["run-2", "run-3"]);
      expect(await list({ statuses: ["failed", "running"], active: false })).toEqual(["run-3"]);
      expect(await list({ statuses: ["running"], active: false })).toEqual([]);
      expect(await list({ statuses: [] })).toEqual([]);
      expect(await list({ statuses: ["no-such-status"] })).toEqual([]);
    });

    it("keeps a cursor's place when the run it names no longer passes the status filter", async () => {
      const a = await t.createAgent();
      for (const id of ["run-1", "run-2", "run-3", "run-4"]) await t.store.putRun(run(id, a));
      const active = { projectId: "project-1", active: true };
      expect(ids(await t.store.listRuns(active, asc(2)))).toEqual(["run-1", "run-2"]);
      // run-2 ends between two pages: paging on after it neither stops nor repeats.
      await t.store.putRun(runIn("run-2", a, "completed"));
      expect(ids(await t.store.listRuns(active, asc(2, { after: "run-2" })))).toEqual([
        "run-3",
        "run-4",
      ]);
      expect(ids(await t.store.listRuns(active, desc(2, { before: "run-2" })))).toEqual([
        "run-4",
        "run-3",
      ]);
    });

    it("lists an agent's runs under the project its updated record names", async () => {
      const a = await t.createAgent("agent-a", "project-1");
      const b = await t.createAgent("agent-b", "project-1");
      await t.store.putRun(run("run-1", a));
      await t.store.putRun(run("run-2", b));
      await t.store.updateAgent(agentRecord(a, "project-2"));
      expect(ids(await t.store.listRuns({ projectId: "project-1" }, asc()))).toEqual(["run-2"]);
      expect(ids(await t.store.listRuns({ projectId: "project-2" }, asc()))).toEqual(["run-1"]);
      expect(await t.store.listRuns({ projectId: "project-1", agentId: a }, asc())).toEqual([]);
    });

    it("visits every run that passes the filter exactly once when paging with after=<last id>", async () => {
      const settings = fc.record({
        runs: fc.array(fc.record({ ofB: fc.boolean(), status: fc.constantFrom(...STATUSES) }), {
          maxLength: 12,
        }),
        limit: fc.integer({ min: 1, max: 5 }),
        order: fc.constantFrom("asc" as const, "desc" as const),
        statuses: fc.option(fc.subarray([...STATUSES]), { nil: undefined }),
        byAgent: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(settings, async ({ runs, limit, order, statuses, byAgent }) => {
          const project = t.fresh("project");
          const a = await t.createAgent(t.fresh("agent"), project);
          const b = await t.createAgent(t.fresh("agent"), project);
          const made: RunRecord[] = [];
          for (const [i, { ofB, status }] of runs.entries()) {
            // Ids run against creation order, so that sorting by id would show.
            made.push(runIn(`run-${99 - i}-${t.fresh("r")}`, ofB ? b : a, status));
            await t.store.putRun(made[i] as RunRecord);
          }
          const filter = { projectId: project, statuses, agentId: byAgent ? a : undefined };
          const passes = (r: RunRecord) =>
            (!statuses || statuses.includes(r.status)) && (!byAgent || r.agent_id === a);
          const expected = ids(made.filter(passes));
          const seen: string[] = [];
          let after: string | undefined;
          for (let pages = 0; pages <= made.length + 1; pages++) {
            const page = ids(await t.store.listRuns(filter, { order, limit, after }));
            expect(page.length).toBeLessThanOrEqual(limit);
            if (page.length === 0) break;
            seen.push(...page);
            after = page.at(-1);
          }
          expect(seen).toEqual(order === "asc" ? expected : [...expected].reverse());
        }),
        { numRuns: 25 },
      );
    });
  });
}
