import { describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../src/agent/compaction.js";
import { sendUserMessage } from "../src/agent/run-turn.js";
import type { ModelRequest } from "../src/llm/model.js";
import { ModelError } from "../src/llm/model-error.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { loopKit } from "./support/loop-kit.js";

/** A model that answers turns briefly and summaries as `summaries` says, call by call. */
function summarisingModel(summaries: (input: string, n: number) => SimReply | ModelError) {
  let n = 0;
  return createSimModel({
    contextWindow: 5000,
    script: (request: ModelRequest) => {
      if (request.system !== SUMMARY_PROMPT) return { text: "ok" };
      const input = request.messages[0]?.content ?? "";
      return summaries(typeof input === "string" ? input : "", n++);
    },
  });
}

const long = (i: number) => `message ${i} about ${i === 0 ? "zanzibar " : ""}${"word ".repeat(60)}`;

async function chat(kit: Awaited<ReturnType<typeof loopKit>>, from: number, to: number) {
  let state = await kit.session();
  for (let i = from; i < to; i += 1)
    state = (await sendUserMessage(kit.agent, state, { content: long(i) }, kit.deps)).state;
  return state;
}

const summaryRequests = (model: { requests: readonly ModelRequest[] }) =>
  model.requests.filter((request) => request.system === SUMMARY_PROMPT);

describe("summarising compaction (issue 13)", () => {
  it("summarises the oldest messages into a summary that heads every later request", async () => {
    const model = summarisingModel((_input, n) => ({ text: `summary number ${n}` }));
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const state = await chat(kit, 0, 25);
    expect(summaryRequests(model).length).toBeGreaterThan(0);
    expect(state.summary).toMatchObject({ text: expect.stringMatching(/^summary number/) });
    const last = model.requests.at(-1);
    expect(last?.system).not.toBe(SUMMARY_PROMPT);
    expect(last?.messages[0]?.content).toContain(state.summary?.text);
    expect(JSON.stringify(last?.messages)).not.toContain("message 0 about");
    // The summary is committed: the stored checkpoint has it, and it is not made again for a
    // turn that fits.
    expect((await kit.store.loadSession(kit.agent.id))?.summary).toEqual(state.summary);
    const before = summaryRequests(model).length;
    await sendUserMessage(kit.agent, state, { content: "short" }, kit.deps);
    expect(summaryRequests(model).length).toBe(before);
  });

  it("folds the previous summary into the next one (Letta's recursive summary)", async () => {
    const model = summarisingModel((_input, n) => ({ text: `summary number ${n}` }));
    const kit = await loopKit({ type: "letta_v1_agent", model });
    await chat(kit, 0, 40);
    const asked = summaryRequests(model);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(asked[0]?.messages[0]?.content).not.toContain("Previous summary");
    expect(asked[1]?.messages[0]?.content).toContain("Previous summary:\nsummary number 0");
    const state = await kit.session();
    expect(state.summary?.folded).toBeGreaterThan(0);
    expect(state.summary?.text).toBe(`summary number ${asked.length - 1}`);
  });

  it("keeps the previous summary and records the failure when summarising fails", async () => {
    const model = summarisingModel((_input, n) =>
      n === 0 ? { text: "the first summary" } : new ModelError("server", "summariser down"),
    );
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const state = await chat(kit, 0, 40);
    expect(summaryRequests(model).length).toBeGreaterThanOrEqual(2);
    expect(state.summary).toMatchObject({
      text: "the first summary",
      last_error: expect.stringContaining("summariser down"),
    });
    expect(state.stop_reason).toBe("end_turn");
    const last = model.requests.at(-1);
    expect(last?.messages[0]?.content).toContain("the first summary");
    expect(JSON.stringify(last?.messages)).toMatch(
      /earlier messages are outside the context window/,
    );
    expect(kit.events).toContainEqual(
      expect.objectContaining({ type: "compaction", status: "failed" }),
    );
  });

  it("tries a failed summary once per turn, not at each of the turn's model calls", async () => {
    const model = createSimModel({
      contextWindow: 5000,
      script: (request: ModelRequest) => {
        if (request.system === SUMMARY_PROMPT) return new ModelError("server", "summariser down");
        const last = request.messages.at(-1);
        // Each turn searches once, then answers: two model calls per turn.
        return last?.role === "tool"
          ? { text: "ok" }
          : { toolCalls: [{ name: "conversation_search", args: { query: "absent" } }] };
      },
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    let state = await kit.session();
    const perTurn: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const before = summaryRequests(model).length;
      state = (await sendUserMessage(kit.agent, state, { content: long(i) }, kit.deps)).state;
      perTurn.push(summaryRequests(model).length - before);
    }
    expect(Math.max(...perTurn)).toBe(1);
    expect(perTurn.filter((n) => n === 1).length).toBeGreaterThan(1);
    expect(state.stop_reason).toBe("end_turn");
  });

  it("goes on without a summary when the first one fails: the context is never emptied", async () => {
    const model = summarisingModel(() => new ModelError("server", "summariser down"));
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const state = await chat(kit, 0, 25);
    expect(state.stop_reason).toBe("end_turn");
    expect(state.summary).toMatchObject({ text: "", last_error: expect.any(String) });
    const last = model.requests.at(-1);
    expect(
      last?.messages.some((m) => m.role === "user" && m.content.startsWith("message 24")),
    ).toBe(true);
  });

  it("keeps the summarised originals stored and searchable", async () => {
    const model = summarisingModel(() => ({ text: "a summary" }));
    const kit = await loopKit({ type: "letta_v1_agent", model });
    await chat(kit, 0, 25);
    expect(await kit.messages()).toHaveLength(50);
    const hits = await kit.store.searchMessages(kit.agent.id, "zanzibar", { limit: 5 });
    expect(hits.map((hit) => hit.text)).toEqual([long(0)]);
  });
});
