import { describe, expect, it } from "vitest";
import { serviceKit } from "../../test/support/service-kit.js";
import { NotFoundError } from "../core/errors.js";
import type { AgentEvent } from "../runtime/agent-events.js";
import { PendingApprovalError } from "../runtime/outcomes.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";

/** A store that counts the calls of each of its methods. */
function countingStore(store: Store) {
  const calls = new Map<string, number>();
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: counted,
    count: (method: keyof Store) => calls.get(method) ?? 0,
    reset: () => calls.clear(),
  };
}

const say = (content: string) => ({ messages: [{ role: "user" as const, content }] });

async function setup(toolRules: { type: "requires_approval"; tool_name: string }[] = []) {
  const counting = countingStore(createInMemoryStore());
  const { services } = serviceKit({ store: counting.store });
  const agent = await services.agents.create("p1", {
    name: "counted",
    agent_type: "memgpt_agent",
    tool_rules: toolRules,
  });
  return { ...counting, messages: services.messages, agentId: agent.id };
}

describe("message service: each check once per message (issue #16)", () => {
  it("reads the agent once per message, sent, streamed or sent async", async () => {
    const { messages, agentId, count, reset } = await setup();
    // The first message also activates the agent, which loads it for its turns.
    await messages.send("p1", agentId, say("hello"));
    const reads: Record<string, number> = {};
    reset();
    await messages.send("p1", agentId, say("again"));
    reads.send = count("getAgent");
    reset();
    const events: AgentEvent[] = [];
    const started = await messages.startStream("p1", agentId, say("stream it"));
    await started.pipe((event) => events.push(event));
    reads.stream = count("getAgent");
    reset();
    await messages.sendAsync("p1", agentId, say("later"));
    reads.async = count("getAgent");
    expect(reads).toEqual({ send: 1, stream: 1, async: 1 });
    expect(events.map((e) => e.type)).toContain("stop");
  });

  it("leaves the pending-approval check to the engine, and still refuses before a stream starts", async () => {
    const { messages, agentId, count, reset } = await setup([
      { type: "requires_approval", tool_name: "core_memory_append" },
    ]);
    const waiting = await messages.send("p1", agentId, say("my name is Ada"));
    expect(waiting.stop_reason.stop_reason).toBe("requires_approval");
    for (const attempt of [
      () => messages.startStream("p1", agentId, say("hi")),
      () => messages.sendAsync("p1", agentId, say("hi")),
      () => messages.send("p1", agentId, say("hi")),
    ]) {
      reset();
      await expect(attempt()).rejects.toBeInstanceOf(PendingApprovalError);
      // The engine checks the session it holds; nothing reads the stored one again.
      expect(count("loadSession")).toBe(0);
      expect(count("getAgent")).toBe(1);
    }
    // Answers are checked against the session the engine holds: no stored session is read.
    reset();
    const call = waiting.messages.find((m) => m.message_type === "approval_request_message");
    const answer = { type: "approval" as const, tool_call_id: call?.tool_call.tool_call_id ?? "" };
    const approvals = [{ ...answer, approve: true }];
    const done = await messages.send("p1", agentId, {
      messages: [{ type: "approval", approvals }],
    });
    expect(done.stop_reason.stop_reason).toBe("end_turn");
    expect({ sessions: count("loadSession"), agents: count("getAgent") }).toEqual({
      sessions: 0,
      agents: 1,
    });
  });

  it("answers an unknown agent, or another project's, with a 404 before anything runs", async () => {
    const { messages, agentId } = await setup();
    for (const [project, id] of [
      ["p1", "agent-none"],
      ["p2", agentId],
    ] as const) {
      await expect(messages.startStream(project, id, say("hi"))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    }
  });
});
