import { describe, expect, it } from "vitest";
import { resumeSession, sendUserMessage, submitApprovals } from "../src/agent/run-turn.js";
import { ValidationError } from "../src/core/errors.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import { loopKit, transcript } from "./support/loop-kit.js";

const insertThenReply = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: `after: ${(request.messages.at(-1) as { content: string }).content}` }
        : {
            toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }],
          },
  });

function approvalKit() {
  return loopKit({
    type: "letta_v1_agent",
    model: insertThenReply(),
    rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
  });
}

describe("approvals", () => {
  it("stops with requires_approval, then runs the tool once approved", async () => {
    const kit = await approvalKit();
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "note it" },
      kit.deps,
    );
    expect(asked.stopReason).toBe("requires_approval");
    expect(asked.state.phase).toBe("awaiting_approval");
    expect(transcript(asked.messages).at(-1)).toBe(
      'approval_request_message: memory_insert {"label":"human","new_str":"likes tea"}',
    );
    const human = async () =>
      (await kit.store.loadBlocks(kit.agent.id)).find((b) => b.label === "human")?.value;
    expect(await human()).toBe("");

    const callId = asked.state.pending[0]?.tool_call.tool_call_id ?? "";
    const done = await submitApprovals(
      kit.agent,
      asked.state,
      [{ tool_call_id: callId, approve: true, reason: null }],
      kit.deps,
    );
    expect(transcript(done.messages)).toEqual([
      "approval_response_message: approve",
      "tool_return_message: memory_insert success: block 'human' now holds 9 of 5000 characters",
      "assistant_message: after: block 'human' now holds 9 of 5000 characters",
    ]);
    expect(done.stopReason).toBe("end_turn");
    expect(await human()).toBe("likes tea");
  });

  it("tells the model the reason when the call is denied, and does not run it", async () => {
    const kit = await approvalKit();
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "note it" },
      kit.deps,
    );
    const callId = asked.state.pending[0]?.tool_call.tool_call_id ?? "";
    const done = await submitApprovals(
      kit.agent,
      asked.state,
      [{ tool_call_id: callId, approve: false, reason: "not now" }],
      kit.deps,
    );
    expect(transcript(done.messages).slice(1)).toEqual([
      "tool_return_message: memory_insert error: denied: not now",
      "assistant_message: after: denied: not now",
    ]);
    expect((await kit.store.loadBlocks(kit.agent.id)).find((b) => b.label === "human")?.value).toBe(
      "",
    );
  });

  it("refuses a decision for a call that is not waiting, losing nothing", async () => {
    const kit = await approvalKit();
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "note it" },
      kit.deps,
    );
    const wrong = submitApprovals(
      kit.agent,
      asked.state,
      [{ tool_call_id: "nope", approve: true, reason: null }],
      kit.deps,
    );
    await expect(wrong).rejects.toBeInstanceOf(ValidationError);
    expect((await kit.store.loadSession(kit.agent.id))?.phase).toBe("awaiting_approval");
  });

  it("denies a request that expired when the session resumes after its deadline", async () => {
    const kit = await approvalKit();
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "note it" },
      kit.deps,
    );
    const early = await resumeSession(kit.agent, asked.state, kit.deps);
    expect(early.state.phase).toBe("awaiting_approval");
    kit.clock.advance(kit.agent.config.approvalTimeoutMs);
    const late = await resumeSession(kit.agent, asked.state, kit.deps);
    expect(transcript(late.messages)).toContain(
      "tool_return_message: memory_insert error: denied: the approval request expired without an answer",
    );
    expect(late.stopReason).toBe("end_turn");
  });

  it("asks once per session for a per_session tool and remembers the approval", async () => {
    const model = insertThenReply();
    const config = {
      types: { asker: { extends: "letta_v1_agent", tools: { approval: "per_session" } } },
    };
    const kit = await loopKit({ type: "asker", model, config });
    expect(
      kit.agent.config.capabilities.offered.find((t) => t.name === "memory_insert")?.approval,
    ).toBe("per_session");
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "one" },
      kit.deps,
    );
    const callId = asked.state.pending[0]?.tool_call.tool_call_id ?? "";
    const done = await submitApprovals(
      kit.agent,
      asked.state,
      [{ tool_call_id: callId, approve: true, reason: null }],
      kit.deps,
    );
    const again = await sendUserMessage(kit.agent, done.state, { content: "two" }, kit.deps);
    expect(again.stopReason).toBe("end_turn");
    expect(transcript(again.messages)).not.toContain(expect.stringMatching(/^approval_request/));
  });
});

describe("several approvals in one model response", () => {
  // Regression (code review): both answers got the same message id; on SQLite the second
  // commit failed and the session stayed waiting for good.
  it("asks for each call in turn and records every answer under its own id", async () => {
    const model = createSimModel({
      script: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "both done" }
          : {
              toolCalls: [
                { name: "memory_insert", args: { label: "human", new_str: "a" } },
                { name: "memory_insert", args: { label: "human", new_str: "b" } },
              ],
            },
    });
    const store = await openSqliteStore(":memory:");
    const kit = await loopKit({
      type: "letta_v1_agent",
      model,
      rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    // The same agent on SQLite, where the review reproduced the stuck session.
    const record = await kit.store.getAgent(kit.agent.id);
    if (!record) throw new Error("no agent");
    await store.createAgent({ agent: record, blocks: await kit.store.loadBlocks(kit.agent.id) });
    const deps = { ...kit.deps, store };
    let turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "note both" },
      deps,
    );
    for (let i = 0; i < 2; i += 1) {
      expect(turn.stopReason).toBe("requires_approval");
      const waiting = turn.state.pending.filter((c) => c.status === "awaiting_approval");
      turn = await submitApprovals(
        kit.agent,
        turn.state,
        waiting.map((c) => ({
          tool_call_id: c.tool_call.tool_call_id,
          approve: true,
          reason: null,
        })),
        deps,
      );
    }
    expect(turn.stopReason).toBe("end_turn");
    expect((await store.loadBlocks(kit.agent.id)).find((b) => b.label === "human")?.value).toBe(
      "a\nb",
    );
  });
});
