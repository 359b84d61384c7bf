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

    it("lists no messages of a run it has no record of, of another agent, or from before the run was stored", async () => {
      const [a, b] = [await t.createAgent("agent-a"), await t.createAgent("agent-b")];
      await t.store.commit(step(a, { messages: [runMessage("m-0", "run-none", 1)] }));
      expect(await t.store.listRunMessages("run-none")).toEqual([]);
      await t.store.commit(step(a, { messages: [runMessage("m-early", "run-1", 1)] }));
      await t.store.commit(
        step(a, { messages: [runMessage("m-1", "run-1", 2)], run: run("run-1", a) }),
      );
      await t.store.commit(step(b, { messages: [runMessage("m-b", "run-1", 1)] }));
      expect(ids(await t.store.listRunMessages("run-1"))).toEqual(["m-1"]);
      await t.store.deleteAgent(a);
      expect(await t.store.listRunMessages("run-1")).toEqual([]);
    });

    it("keeps listing a run's messages however often the run is stored again", async () => {
      const a = await t.createAgent();
      await t.store.commit(step(a, { messages: [runMessage("m-before", "run-9", 1)] }));
      await t.store.putRun(run("run-1", a));
      await t.store.commit(step(a, { messages: [runMessage("m-1", "run-1", 1)] }));
      await t.store.putRun({ ...run("run-1", a), stop_reason: "requires_approval" });
      await t.store.commit(
        step(a, { messages: [runMessage("m-2", "run-1", 2)], run: run("run-1", a) }),
      );
      const ended = { ...run("run-1", a), status: "completed" as const, completed_at_ms: 9_000 };
      await t.store.commit(step(a, { messages: [runMessage("m-3", "run-1", 3)], run: ended }));
      expect(ids(await t.store.listRunMessages("run-1"))).toEqual(["m-1", "m-2", "m-3"]);
      expect(await t.store.getRun("run-1")).toEqual(ended);
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
      const put = { ...ended, id: "run-2", idempotency_key: "otid-2" };
      await t.store.putRun(put);
      expect(await t.store.findRunByKey(a, "otid-2")).toEqual(put);
      expect(await t.store.listRuns({ projectId: "project-1" }, asc())).toEqual([ended, put]);
    });

    it("lists a sub-agent under its parent only, and leaves it be when the parent is deleted", async () => {
      const parent = await t.createAgent("agent-p");
      await t.createAgent("agent-unrelated");
      for (const id of ["agent-c2", "agent-c1"]) {
        await t.store.createAgent({ agent: { ...agentRecord(id), parent_id: parent }, blocks: [] });
      }
      const elsewhere = { ...agentRecord("agent-c3", "project-2"), parent_id: parent };
      await t.store.createAgent({ agent: elsewhere, blocks: [] });
      expect(ids(await t.store.listChildren(parent))).toEqual(["agent-c2", "agent-c1", "agent-c3"]);
      expect(await t.store.listChildren("agent-c1")).toEqual([]);
      expect(await t.store.listChildren("agent-unrelated")).toEqual([]);
      await t.store.deleteAgent("agent-c2");
      await t.store.deleteAgent(parent);
      // Children outlive their parent, keeping a parent_id that no longer resolves.
      expect(await t.store.getAgent("agent-c1")).toMatchObject({ parent_id: parent });
      expect(ids(await t.store.listChildren(parent))).toEqual(["agent-c1", "agent-c3"]);
    });

    it("lists an agent under the parent its updated record names", async () => {
      const [p, q] = [await t.createAgent("agent-p"), await t.createAgent("agent-q")];
      await t.store.createAgent({ agent: { ...agentRecord("agent-c"), parent_id: p }, blocks: [] });
      await t.store.updateAgent({ ...agentRecord("agent-c"), parent_id: q });
      expect(await t.store.listChildren(p)).toEqual([]);
      expect(ids(await t.store.listChildren(q))).toEqual(["agent-c"]);
      await t.store.updateAgent({ ...agentRecord("agent-c"), parent_id: null });
      expect(await t.store.listChildren(q)).toEqual([]);
    });

    it("lists agents waiting for their sub-agents among the sessions to carry on after a restart", async () => {
      // Created out of id order: the list is sorted by id, not by creation.
      const [c, b, a, d] = [
        await t.createAgent("agent-c"),
        await t.createAgent("agent-b"),
        await t.createAgent("agent-a"),
        await t.createAgent("agent-d"),
      ];
      await t.store.commit(step(c, { state: session("awaiting_children") }));
      await t.store.commit(step(b, { state: session("running") }));
      await t.store.commit(step(a, { state: session("awaiting_children") }));
      await t.store.commit(step(d, { state: session("awaiting_approval") }));
      expect(await t.store.interruptedSessions()).toEqual([a, b, c]);
      // Once its children have answered and its turn ended, a parent is no longer listed.
      await t.store.commit(step(c, { state: session("idle") }));
      expect(await t.store.interruptedSessions()).toEqual([a, b]);
    });
  });
}
