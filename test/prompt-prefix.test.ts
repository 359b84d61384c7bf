import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import { runtimeKit } from "./support/runtime-kit.js";

/**
 * A letta_v1_agent talking for `turns` turns with unchanged memory; every other turn it
 * searches its conversation first, so tool calls and returns are in the history too.
 */
async function conversation(turns: number): Promise<ModelRequest[]> {
  const model = createSimModel({
    script: (request) => {
      const last = request.messages.at(-1);
      const turn = last?.role === "user" ? /^Question (\d+)/.exec(last.content)?.[1] : undefined;
      return turn !== undefined && Number(turn) % 2 === 0
        ? { toolCalls: [{ name: "conversation_search", args: { query: `q${turn}` } }] }
        : { text: "Noted." };
    },
  });
  const { runtime, create } = runtimeKit(createInMemoryStore(), { model });
  const agent = await create("letta_v1_agent");
  for (let turn = 0; turn < turns; turn += 1) {
    const outcome = await runtime.send(agent, { content: `Question ${turn}` });
    expect(outcome.stopReason).toBe("end_turn");
  }
  await runtime.shutdown();
  return model.requests;
}

/** Calls whose request does not hold the previous request whole as its prefix. */
function breaks(requests: readonly ModelRequest[]): number[] {
  const broken: number[] = [];
  for (let i = 1; i < requests.length; i += 1) {
    const before = requests[i - 1] as ModelRequest;
    const now = requests[i] as ModelRequest;
    const kept =
      now.system === before.system &&
      JSON.stringify(now.tools) === JSON.stringify(before.tools) &&
      JSON.stringify(now.messages.slice(0, before.messages.length)) ===
        JSON.stringify(before.messages);
    if (!kept) broken.push(i);
  }
  return broken;
}

describe("the stable prefix of consecutive model requests (issue #17, prompt caching)", () => {
  it("holds each earlier request whole as the next one's prefix over 50 turns with unchanged memory", async () => {
    const requests = await conversation(50);
    expect(requests).toHaveLength(75);
    expect(breaks(requests)).toEqual([]);
  });

  it("past the 200-message history window, moves the window's start only once per page of 50 messages", async () => {
    const requests = await conversation(150);
    const broken = breaks(requests);
    // 150 turns leave 525 messages: the start moves about (525 - 200) / 50 times, not per call.
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.length).toBeLessThanOrEqual(7);
    for (const i of broken) {
      const now = requests[i] as ModelRequest;
      expect(now.system).toBe(requests[i - 1]?.system);
      expect(now.messages.length).toBeLessThanOrEqual(201);
    }
  });
});
