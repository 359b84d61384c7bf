import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../records/messages.js";
import {
  agentRecord,
  asc,
  type ContractContext,
  desc,
  ids,
  run,
  session,
  step,
} from "./fixtures.js";

/** A message of run `runId`, numbered within it. */
function runMessage(id: string, runId: string, seq: number): AgentMessage {
  const base = { id, date: "2025-03-01T12:00:00.000Z", run_id: runId, step_id: null, otid: null };
  return { ...base, seq_id: seq, message_type: "assistant_message", content: `${id} of ${runId}` };
}

/** Runs, their messages, and sub-agents: what re-attaching, `GET /v1/runs` and trees read. */
export function runCases(t: ContractContext): void {
  describe("runs and sub-agents", () => {
    it("lists a run's messages in commit order, numbered, and no other run's", async () => {
      const a = await t.createAgent();
      await t.store.commit(
        step(a, { messages: [runMessage("m-2", "run-1", 1)], run: run("run-1", a) }),
      );
      await t.store.commit(step(a, { messages: [runMessage("m-x", "run-2", 1)] }));
      await t.store.commit(step(a, { messages: [runMessage("m-1", "run-1", 2)] }));
      const found = await t.store.listRunMessages("run-1");
      expect(ids(found)).toEqual(["m-2", "m-1"]);
      expect(found.map((m) => m.seq_id)).toEqual([1, 2]);
      expect(await t.store.listRunMessages("run-unknown")).toEqual([]);
      // A run stored before any of its messages finds them too.
      await t.store.putRun(run("run-3", a));
      await t.store.commit(step(a, { messages: [runMessage("m-3", "run-3", 1)] }));
      expect(ids(await t.store.listRunMessages("run-3"))).toEqual(["m-3"]);
    });

    it("lists runs of one project in creation order, by agent, by activity and by status, with cursors", async () => {
      const a = await t.createAgent("agent-a", "project-1");
      const b = await t.createAgent("agent-b", "project-1");
      const other = await t.createAgent("agent-o", "project-2");
      await t.store.putRun(run("run-1", a));
      await t.store.putRun(run("run-2", b));
      await t.store.putRun(run("run-3", other));
      await t.store.putRun(run("run-4", a));
      // Ending a run changes it in place: creation order stays.
      await t.store.putRun({ ...run("run-1", a), status: "completed", completed_at_ms: 4_000 });
      const all = { projectId: "project-1" };
      expect(ids(await t.store.listRuns(all, asc()))).toEqual(["run-1", "run-2", "run-4"]);
      expect(ids(await t.store.listRuns(all, desc(2)))).toEqual(["run-4", "run-2"]);
      expect(ids(await t.store.listRuns({ ...all, agentId: a }, asc()))).toEqual([
        "run-1",
        "run-4",
      ]);
      expect(ids(await t.store.listRuns({ ...all, active: true }, asc()))).toEqual([
        "run-2",
        "run-4",
      ]);
      expect(ids(await t.store.listRuns({ ...all, statuses: ["completed"] }, asc()))).toEqual([
        "run-1",
      ]);
      expect(ids(await t.store.listRuns(all, asc(10, { after: "run-1" })))).toEqual([
        "run-2",
        "run-4",
      ]);
      expect(ids(await t.store.listRuns(all, desc(10, { after: "run-4" })))).toEqual([
        "run-2",
        "run-1",
      ]);
      // Another project's run is an unknown cursor, as is one of another agent under a filter.
      expect(await t.store.listRuns(all, asc(10, { after: "run-3" }))).toEqual([]);
      expect(await t.store.listRuns({ ...all, agentId: a }, asc(10, { after: "run-2" }))).toEqual(
        [],
      );
      await t.store.deleteAgent(a);
      expect(ids(await t.store.listRuns(all, asc()))).toEqual(["run-2"]);
    });

    it("keeps a run's usage and verifier outcome", async () => {
      const a = await t.createAgent();
      const ended = {
        ...run("run-1", a),
        status: "completed" as const,
        usage: { prompt_tokens: 10, completion_tokens: 5, step_count: 2 },
        verification: { passed: false, rounds: 2, findings: ["off by one", "still off"] },
      };
      await t.store.commit(step(a, { run: ended }));
      expect(await t.store.getRun("run-1")).toEqual(ended);
    });

    it("lists a sub-agent under its parent only, and leaves it be when the parent is deleted", async () => {
      const parent = await t.createAgent("agent-p");
      await t.createAgent("agent-unrelated");
      for (const id of ["agent-c2", "agent-c1"]) {
        await t.store.createAgent({ agent: { ...agentRecord(id), parent_id: parent }, blocks: [] });
      }
      expect(ids(await t.store.listChildren(parent))).toEqual(["agent-c2", "agent-c1"]);
      expect(await t.store.listChildren("agent-c1")).toEqual([]);
      await t.store.deleteAgent(parent);
      expect(await t.store.getAgent("agent-c1")).toMatchObject({ parent_id: parent });
    });

    it("lists agents waiting for their sub-agents among the sessions to carry on after a restart", async () => {
      const [a, b, c] = [
        await t.createAgent("agent-a"),
        await t.createAgent("agent-b"),
        await t.createAgent("agent-c"),
      ];
      await t.store.commit(step(a, { state: session("awaiting_children") }));
      await t.store.commit(step(b, { state: session("running") }));
      await t.store.commit(step(c, { state: session("awaiting_approval") }));
      expect(await t.store.interruptedSessions()).toEqual([a, b]);
    });
  });
}
