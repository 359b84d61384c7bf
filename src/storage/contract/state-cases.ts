import { describe, expect, it } from "vitest";
import {
  agentRecord,
  asc,
  block,
  busySession,
  type ContractContext,
  ids,
  passage,
  run,
  type StoreContractOptions,
  session,
  step,
  toolReturn,
  userMessage,
} from "./fixtures.js";

/** Sessions, runs, timers, and (for stores that keep data) persistence. */
export function stateCases(t: ContractContext, options: StoreContractOptions): void {
  describe("sessions", () => {
    it("loads the session last committed, exactly", async () => {
      const id = await t.createAgent();
      expect(await t.store.loadSession(id)).toBeNull();
      await t.store.commit(step(id, { state: session("running") }));
      await t.store.commit(step(id, { state: busySession() }));
      expect(await t.store.loadSession(id)).toEqual(busySession());
    });

    it("lists the agents whose last committed session is running", async () => {
      const [a, b, c] = [
        await t.createAgent("agent-a"),
        await t.createAgent("agent-b"),
        await t.createAgent("agent-c"),
      ];
      await t.store.commit(step(a, { state: session("running") }));
      await t.store.commit(step(b, { state: session("idle") }));
      await t.store.commit(step(c, { state: session("running") }));
      await t.store.commit(step(c, { state: session("paused") }));
      expect(await t.store.interruptedSessions()).toEqual([a]);
    });
  });

  describe("runs", () => {
    it("stores, updates and finds a run by id and by idempotency key", async () => {
      const id = await t.createAgent();
      await t.store.putRun(run("run-1", id, "otid-1"));
      const done = {
        ...run("run-1", id, "otid-1"),
        status: "completed" as const,
        completed_at_ms: 4_000,
      };
      await t.store.putRun(done);
      expect(await t.store.getRun("run-1")).toEqual(done);
      expect(await t.store.findRunByKey(id, "otid-1")).toEqual(done);
      expect(await t.store.getRun("run-missing")).toBeNull();
      expect(await t.store.findRunByKey(id, "otid-missing")).toBeNull();
    });

    it("scopes idempotency keys to an agent and refuses a second run for one key", async () => {
      const [a, b] = [await t.createAgent(), await t.createAgent()];
      await t.store.putRun(run("run-a", a, "otid-1"));
      await t.store.putRun(run("run-b", b, "otid-1"));
      await t.store.putRun(run("run-c", a, null));
      await t.store.putRun(run("run-d", a, null));
      expect((await t.store.findRunByKey(b, "otid-1"))?.id).toBe("run-b");
      await expect(t.store.putRun(run("run-e", a, "otid-1"))).rejects.toMatchObject({
        code: "CONFLICT",
      });
      expect(await t.store.getRun("run-e")).toBeNull();
      expect((await t.store.findRunByKey(a, "otid-1"))?.id).toBe("run-a");
    });

    it("rejects a run of an agent that does not exist", async () => {
      await expect(t.store.putRun(run("run-1", "agent-missing"))).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });
  });

  describe("timers", () => {
    it("keeps one timer per agent and kind, moved by putting it again", async () => {
      const id = await t.createAgent();
      await t.store.putTimer({ agent_id: id, kind: "wake", due_at_ms: 500 });
      await t.store.putTimer({ agent_id: id, kind: "wake", due_at_ms: 300 });
      await t.store.putTimer({ agent_id: id, kind: "approval_expiry", due_at_ms: 400 });
      expect(await t.store.dueTimers(1_000)).toEqual([
        { agent_id: id, kind: "wake", due_at_ms: 300 },
        { agent_id: id, kind: "approval_expiry", due_at_ms: 400 },
      ]);
      await t.store.clearTimer(id, "wake");
      await t.store.clearTimer(id, "wake");
      expect(await t.store.dueTimers(1_000)).toEqual([
        { agent_id: id, kind: "approval_expiry", due_at_ms: 400 },
      ]);
    });

    it("returns the timers due at or before now, soonest first, and the next one", async () => {
      const [a, b, c] = [await t.createAgent(), await t.createAgent(), await t.createAgent()];
      expect(await t.store.nextTimer()).toBeNull();
      await t.store.putTimer({ agent_id: a, kind: "wake", due_at_ms: 300 });
      await t.store.putTimer({ agent_id: b, kind: "wake", due_at_ms: 100 });
      await t.store.putTimer({ agent_id: c, kind: "wake", due_at_ms: 200 });
      expect((await t.store.dueTimers(200)).map((t) => t.agent_id)).toEqual([b, c]);
      expect(await t.store.dueTimers(99)).toEqual([]);
      expect(await t.store.nextTimer()).toEqual({ agent_id: b, kind: "wake", due_at_ms: 100 });
    });

    it("commits a session's wake-ups with its checkpoint: set, moved, cleared", async () => {
      const id = await t.createAgent();
      const call = (expires: number | null) => ({
        tool_call: { name: "shell", arguments: "{}", tool_call_id: `call-${expires}` },
        status: "awaiting_approval" as const,
        child_agent_id: null,
        request_heartbeat: false,
        denial_reason: null,
        approval_expires_at_ms: expires,
        outcome: null,
      });
      await t.store.commit(step(id, { state: { ...session("paused"), pause_until_ms: 700 } }));
      expect(await t.store.dueTimers(1_000)).toEqual([
        { agent_id: id, kind: "wake", due_at_ms: 700 },
      ]);
      const waiting = { ...session("awaiting_approval"), pending: [call(900), call(800)] };
      await t.store.commit(step(id, { state: waiting }));
      expect(await t.store.dueTimers(1_000)).toEqual([
        { agent_id: id, kind: "approval_expiry", due_at_ms: 800 },
      ]);
      await t.store.commit(step(id, { state: session("idle") }));
      expect(await t.store.nextTimer()).toBeNull();
    });

    it("reconciles timers with sessions: adds missing wake-ups, drops the ones no session needs", async () => {
      const [a, b] = [await t.createAgent(), await t.createAgent()];
      await t.store.commit(step(a, { state: { ...session("paused"), pause_until_ms: 700 } }));
      await t.store.commit(step(b, { state: session("idle") }));
      await t.store.clearTimer(a, "wake");
      await t.store.putTimer({ agent_id: b, kind: "wake", due_at_ms: 5 });
      expect(await t.store.reconcileWakeUps()).toBe(2);
      expect(await t.store.dueTimers(1_000)).toEqual([
        { agent_id: a, kind: "wake", due_at_ms: 700 },
      ]);
      expect(await t.store.reconcileWakeUps()).toBe(0);
    });

    it("rejects a timer of an agent that does not exist", async () => {
      await expect(
        t.store.putTimer({ agent_id: "agent-missing", kind: "wake", due_at_ms: 1 }),
      ).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await t.store.nextTimer()).toBeNull();
    });
  });

  const reopen = options.reopen;
  if (reopen) {
    describe("persistence", () => {
      it("keeps everything across close and reopen, and appends after it", async () => {
        const id = await t.createAgent("agent-kept", "project-kept");
        await t.store.commit(
          step(id, {
            messages: [userMessage("m-1", "the lighthouse"), toolReturn("m-2", "keeper logs")],
            memory: {
              blocks: [block("human", "kept")],
              passages: [passage("p-1", "lighthouse", ["coast"])],
            },
            state: busySession(),
            run: run("run-1", id, "otid-1"),
          }),
        );
        await t.store.putTimer({ agent_id: id, kind: "wake", due_at_ms: 700 });
        const messages = await t.store.listMessages(id, asc());

        t.store = await reopen(t.store);
        expect(await t.store.getAgent(id)).toEqual(agentRecord(id, "project-kept"));
        expect(ids(await t.store.listAgents("project-kept", asc()))).toEqual([id]);
        expect(await t.store.loadBlocks(id)).toEqual([block("persona"), block("human", "kept")]);
        expect(await t.store.listMessages(id, asc())).toEqual(messages);
        expect(ids(await t.store.searchMessages(id, "keeper", { limit: 5 }))).toEqual(["m-2"]);
        expect(
          await t.store.searchPassages(id, "lighthouse", { tags: ["coast"], topK: 5 }),
        ).toEqual([passage("p-1", "lighthouse", ["coast"])]);
        expect(await t.store.loadSession(id)).toEqual(busySession());
        expect(await t.store.interruptedSessions()).toEqual([]);
        expect(await t.store.findRunByKey(id, "otid-1")).toEqual(run("run-1", id, "otid-1"));
        expect(await t.store.nextTimer()).toEqual({ agent_id: id, kind: "wake", due_at_ms: 700 });

        await t.store.commit(step(id, { messages: [userMessage("a-0", "after reopening")] }));
        expect(ids(await t.store.recentMessages(id, 2))).toEqual(["m-2", "a-0"]);
        expect(await t.store.interruptedSessions()).toEqual([id]);
      });
    });
  }
}
