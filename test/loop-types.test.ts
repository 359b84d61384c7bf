import { describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import { loopKit, transcript } from "./support/loop-kit.js";

describe("built-in types complete scripted conversations on the sim model", () => {
  it("letta_v1_agent edits memory with memory_insert and replies in plain text", async () => {
    const kit = await loopKit({ type: "letta_v1_agent", model: createSimModel() });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "I like sailing" },
      kit.deps,
    );
    expect(transcript(turn.messages)).toEqual([
      "user_message: I like sailing",
      'tool_call_message: memory_insert {"label":"human","new_str":"I like sailing"}',
      "tool_return_message: memory_insert success: block 'human' now holds 14 of 5000 characters",
      "assistant_message: Noted. I will remember that.",
    ]);
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.usage.step_count).toBe(2);
    const model = kit.deps.model as ReturnType<typeof createSimModel>;
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([
      "memory_insert",
      "memory_replace",
      "conversation_search",
    ]);
  });

  it("synthesis makes one model call without tools and ends the turn", async () => {
    const model = createSimModel({
      script: [{ text: "Both sources agree: the bridge opened in 1932." }],
    });
    const kit = await loopKit({ type: "synthesis", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "A says 1932. B says 1932." },
      kit.deps,
    );
    expect(transcript(turn.messages)).toEqual([
      "user_message: A says 1932. B says 1932.",
      "assistant_message: Both sources agree: the bridge opened in 1932.",
    ]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.tools).toEqual([]);
    expect(model.requests[0]?.toolChoice).toBe("none");
    expect(model.requests[0]?.system).toContain("combine the findings");
  });

  it("scoring answers in one call even when the model tries to call a tool", async () => {
    const model = createSimModel({
      script: [
        {
          text: "score: 80\nMostly right.",
          toolCalls: [{ name: "shell", args: { command: "ls" } }],
        },
      ],
    });
    const kit = await loopKit({ type: "scoring", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "Task: add 2+2. Answer: 4" },
      kit.deps,
    );
    expect(transcript(turn.messages)).toEqual([
      "user_message: Task: add 2+2. Answer: 4",
      "assistant_message: score: 80\nMostly right.",
    ]);
    expect(turn.stopReason).toBe("end_turn");
  });

  it("qa_assistant answers each question without seeing earlier ones", async () => {
    const model = createSimModel();
    const kit = await loopKit({ type: "qa_assistant", model });
    const first = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "hello" },
      kit.deps,
    );
    await sendUserMessage(kit.agent, first.state, { content: "again" }, kit.deps);
    expect(model.requests[1]?.messages).toEqual([{ role: "user", content: "again" }]);
  });

  it("tutor sees the whole conversation of the session", async () => {
    const model = createSimModel();
    const kit = await loopKit({ type: "tutor", model });
    const first = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "teach me fractions" },
      kit.deps,
    );
    const second = await sendUserMessage(
      kit.agent,
      first.state,
      { content: "and decimals" },
      kit.deps,
    );
    expect(model.requests[1]?.messages).toEqual([
      { role: "user", content: "teach me fractions" },
      { role: "assistant", content: "You said: teach me fractions", toolCalls: [] },
      { role: "user", content: "and decimals" },
    ]);
    expect(transcript(second.messages)).toEqual([
      "user_message: and decimals",
      "assistant_message: You said: and decimals",
    ]);
  });

  it("keeps agents of different types apart on one store", async () => {
    const store = createInMemoryStore();
    const memgpt = await loopKit({
      type: "memgpt_agent",
      model: createSimModel(),
      store,
      agentId: "agent-a",
    });
    const letta = await loopKit({
      type: "letta_v1_agent",
      model: createSimModel(),
      store,
      agentId: "agent-b",
    });
    const a = sendUserMessage(
      memgpt.agent,
      await memgpt.session(),
      { content: "My name is Ada" },
      memgpt.deps,
    );
    const b = sendUserMessage(
      letta.agent,
      await letta.session(),
      { content: "I like tea" },
      letta.deps,
    );
    await Promise.all([a, b]);
    const human = async (id: string) =>
      (await store.loadBlocks(id)).find((x) => x.label === "human")?.value;
    expect(await human("agent-a")).toBe("My name is Ada");
    expect(await human("agent-b")).toBe("I like tea");
    expect((await memgpt.messages()).every((m) => !JSON.stringify(m).includes("tea"))).toBe(true);
    expect(
      (await letta.messages()).some(
        (m) => m.message_type === "tool_call_message" && m.tool_call.name === "core_memory_append",
      ),
    ).toBe(false);
  });
});
