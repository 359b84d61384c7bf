import { describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../agent/compaction.js";
import { ConflictError, InvalidArgumentError } from "../core/errors.js";
import type { SimScript } from "../llm/sim/sim-model.js";
import { StaleChangeError } from "../records/agent-change.js";
import type { Store } from "../storage/store.js";
import type { AgentEvent } from "./agent-events.js";
import type { Engine } from "./engine.js";
import { PendingApprovalError } from "./outcomes.js";

/** An engine to test, over a fresh store, whose agents all answer with `script`. */
export interface EngineUnderTest {
  engine: Engine;
  store: Store;
  /** Creates an agent of a built-in type; returns its id. */
  create(typeName: string): Promise<string>;
}

const lastRole = (request: Parameters<SimScript>[0]) => request.messages.at(-1)?.role;
const lastText = (request: Parameters<SimScript>[0]) => {
  const last = request.messages.at(-1);
  return last && "content" in last ? last.content : "";
};

/**
 * What every engine must do, whatever runs its agents: named operations over data, events by
 * run, and sub-agents as real agents. `make` builds an engine whose model follows `script`.
 *
 * @example
 * engineContract("embedded engine", (script) => embeddedUnderTest(script));
 */
export function engineContract(
  name: string,
  make: (script: SimScript) => Promise<EngineUnderTest>,
): void {
  describe(name, () => {
    it("runs a message and answers with the run: its messages, stop reason and usage", async () => {
      const t = await make(() => ({ text: "hello" }));
      const id = await t.create("letta_v1_agent");
      const outcome = await t.engine.send(id, { content: "hi" });
      expect(outcome.stopReason).toBe("end_turn");
      expect(outcome.messages.map((m) => m.message_type)).toEqual([
        "user_message",
        "assistant_message",
      ]);
      expect(outcome.messages.map((m) => m.seq_id)).toEqual([1, 2]);
      expect(outcome.usage.step_count).toBe(1);
      expect(await t.store.getRun(outcome.runId ?? "")).toMatchObject({ status: "completed" });
    });

    it("tells a subscriber every event of the run it chose, in order, ending with stop and usage", async () => {
      const t = await make(() => ({ text: "hello" }));
      const id = await t.create("letta_v1_agent");
      const seen: AgentEvent[] = [];
      const unsubscribe = t.engine.subscribe(id, (event) => seen.push(event));
      await t.engine.send(id, { content: "hi" }, { runId: "run-chosen" });
      unsubscribe();
      await t.engine.send(id, { content: "unseen" });
      expect(seen.every((event) => event.runId === "run-chosen" && event.agentId === id)).toBe(
        true,
      );
      expect(seen.map((event) => event.type).slice(-2)).toEqual(["stop", "usage"]);
      const seqs = seen.flatMap((e) => (e.type === "message" ? [e.message.seq_id] : []));
      expect(seqs).toEqual([1, 2]);
    });

    it("answers a retried otid from its first run without running it again", async () => {
      const t = await make(() => ({ text: "once" }));
      const id = await t.create("letta_v1_agent");
      const first = await t.engine.send(id, { content: "hi", otid: "o-1" });
      const again = await t.engine.send(id, { content: "hi", otid: "o-1" });
      expect(again).toMatchObject({ duplicate: true, runId: first.runId, stopReason: "end_turn" });
      expect(await t.store.countMessages(id)).toBe(2);
    });

    it("stops for an approval, refuses new messages meanwhile, and goes on when approved", async () => {
      const t = await make((request) =>
        lastRole(request) === "tool"
          ? { text: "ran" }
          : { toolCalls: [{ name: "shell", args: { command: "ls" } }] },
      );
      const id = await t.create("react_agent");
      const asked = await t.engine.send(id, { content: "list" });
      expect(asked.stopReason).toBe("requires_approval");
      expect(await t.engine.awaitRun(id, asked.runId ?? "")).toMatchObject({
        stopReason: "requires_approval",
      });
      await expect(t.engine.send(id, { content: "more" })).rejects.toBeInstanceOf(
        PendingApprovalError,
      );
      const session = await t.engine.session(id);
      const callId = session.pending[0]?.tool_call.tool_call_id ?? "";
      const done = await t.engine.approve(id, [
        { tool_call_id: callId, approve: true, reason: null },
      ]);
      expect(done.stopReason).toBe("end_turn");
    });

    it("hands a session to an idle agent that carries it on; a busy one refuses it", async () => {
      const t = await make((request) =>
        lastRole(request) === "tool"
          ? { text: "ran" }
          : { toolCalls: [{ name: "shell", args: { command: "ls" } }] },
      );
      const [from, to, busy] = [
        await t.create("react_agent"),
        await t.create("react_agent"),
        await t.create("react_agent"),
      ];
      await t.engine.send(from, { content: "list" });
      const held = await t.engine.session(from);
      const moved = await t.engine.transferSession(from, held.session_id, to);
      expect(moved).toMatchObject({ session_id: held.session_id, phase: "awaiting_approval" });
      expect((await t.engine.session(from)).session_id).not.toBe(held.session_id);
      const callId = moved.pending[0]?.tool_call.tool_call_id ?? "";
      const done = await t.engine.approve(to, [
        { tool_call_id: callId, approve: true, reason: null },
      ]);
      expect(done.stopReason).toBe("end_turn");

      await expect(t.engine.transferSession(from, "any", from)).rejects.toBeInstanceOf(
        ConflictError,
      );
      await t.engine.send(busy, { content: "list" });
      const fresh = await t.engine.session(from);
      await expect(t.engine.transferSession(from, fresh.session_id, busy)).rejects.toBeInstanceOf(
        ConflictError,
      );
      // Refused, the source keeps its session and takes work again.
      expect((await t.engine.session(from)).session_id).toBe(fresh.session_id);
      expect((await t.engine.send(from, { content: "list" })).stopReason).toBe("requires_approval");
    });

    it("cancels a run that waits for an approval", async () => {
      const t = await make(() => ({ toolCalls: [{ name: "shell", args: { command: "ls" } }] }));
      const id = await t.create("react_agent");
      const asked = await t.engine.send(id, { content: "list" });
      expect(await t.engine.cancel(id)).toBe(true);
      expect(await t.store.getRun(asked.runId ?? "")).toMatchObject({ status: "cancelled" });
      expect((await t.engine.session(id)).phase).toBe("idle");
    });

    it("applies a record change only if nobody changed the record since it was read", async () => {
      const t = await make(() => ({ text: "x" }));
      const id = await t.create("letta_v1_agent");
      const before = await t.store.getAgent(id);
      const expectUpdatedAtMs = before?.updated_at_ms ?? 0;
      const changed = await t.engine.updateAgent(id, { name: "first", expectUpdatedAtMs });
      expect(changed.updated_at_ms).toBeGreaterThan(expectUpdatedAtMs);
      await expect(
        t.engine.updateAgent(id, { name: "second", expectUpdatedAtMs }),
      ).rejects.toBeInstanceOf(StaleChangeError);
      expect((await t.store.getAgent(id))?.name).toBe("first");
    });

    it("edits core blocks between turns, within their limits", async () => {
      const t = await make(() => ({ text: "x" }));
      const id = await t.create("memgpt_agent");
      const blocks = await t.engine.editBlocks(id, {
        kind: "update",
        label: "human",
        value: "Ada",
      });
      expect(blocks.find((b) => b.label === "human")?.value).toBe("Ada");
      await expect(
        t.engine.editBlocks(id, { kind: "update", label: "human", value: "x".repeat(100_000) }),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      const human = blocks.find((b) => b.label === "human");
      const left = await t.engine.editBlocks(id, { kind: "detach", blockId: human?.id ?? "" });
      expect(left.map((b) => b.label)).not.toContain("human");
    });

    it("runs a message in a conversation with that conversation's history only (decision 026)", async () => {
      const t = await make((request) => ({
        text: request.messages.flatMap((m) => (m.role === "user" ? [m.content] : [])).join("|"),
      }));
      const id = await t.create("letta_v1_agent");
      await t.engine.send(id, { content: "default" });
      await t.engine.send(id, { content: "one" }, { conversationId: "conv-a" });
      const outcome = await t.engine.send(id, { content: "two" }, { conversationId: "conv-a" });
      expect(outcome.messages.map((m) => [m.conversation_id, "content" in m && m.content])).toEqual(
        [
          ["conv-a", "two"],
          ["conv-a", "one|two"],
        ],
      );
      const back = await t.engine.send(id, { content: "again" });
      expect(back.messages.at(-1)).toMatchObject({ content: "default|again" });
      expect(back.messages.at(-1)?.conversation_id).toBeUndefined();
    });

    it("compacts a conversation into its own summary between runs (decision 026)", async () => {
      const t = await make((request) =>
        request.system === SUMMARY_PROMPT ? { text: "the gist" } : { text: "ok" },
      );
      const id = await t.create("letta_v1_agent");
      await t.engine.send(id, { content: "one" }, { conversationId: "conv-a" });
      await t.engine.send(id, { content: "two" }, { conversationId: "conv-a" });
      await t.engine.send(id, { content: "default" });
      const result = await t.engine.compact(id, { conversationId: "conv-a", mode: "all" });
      expect(result).toEqual({
        summary: "the gist",
        num_messages_before: 4,
        num_messages_after: 0,
      });
      const state = await t.engine.session(id);
      expect(state.summary).toBeNull();
      expect(state.summaries["conv-a"]?.text).toBe("the gist");
      await expect(t.engine.compact(id, { conversationId: "conv-b", mode: "all" })).rejects.toThrow(
        InvalidArgumentError,
      );
    });

    it("runs a spawned sub-agent as a real agent and gives its parent the answer", async () => {
      const t = await make((request) => {
        if (!request.tools.some((tool) => tool.name === "spawn_agent")) return { text: "Paris" };
        if (lastRole(request) === "user") {
          const args = { agent_type: "qa_assistant", prompt: "capital of France?" };
          return { toolCalls: [{ name: "spawn_agent", args }] };
        }
        return { text: `heard: ${lastText(request).split("\n")[1]}` };
      });
      const parent = await t.create("orchestrator");
      const outcome = await t.engine.send(parent, { content: "ask" });
      expect(outcome.stopReason).toBe("end_turn");
      expect(outcome.messages.at(-1)).toMatchObject({ content: "heard: Paris" });
      const [child] = await t.store.listChildren(parent);
      expect(child).toMatchObject({
        parent_id: parent,
        agent_type: "qa_assistant",
        tags: ["spawned"],
      });
      expect(
        await t.store.listRuns(
          { projectId: "default", agentId: child?.id ?? "" },
          { limit: 10, order: "asc" },
        ),
      ).toMatchObject([{ status: "completed" }]);
    });
  });
}
