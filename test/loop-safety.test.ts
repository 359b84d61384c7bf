import { describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { loopKit, transcript } from "./support/loop-kit.js";

const returns = (messages: ReturnType<typeof transcript>) =>
  messages.filter((line) => line.startsWith("tool_return_message"));

describe("the loop refuses what an agent may not do, with an error the model sees", () => {
  it("does not run a tool the agent type does not offer, and records the attempt", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "core_memory_append", args: { label: "human", content: "x" } }] },
        { text: "ok" },
      ],
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
    expect(returns(transcript(turn.messages))).toEqual([
      "tool_return_message: core_memory_append error: tool 'core_memory_append' is not offered to this agent",
    ]);
    const human = (await kit.store.loadBlocks(kit.agent.id)).find((b) => b.label === "human");
    expect(human?.value).toBe("");
    expect(turn.state.tool_calls).toBe(0);
    expect(turn.stopReason).toBe("end_turn");
  });

  it("rejects pause_heartbeats for a type without heartbeats and ignores request_heartbeat", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "pause_heartbeats", args: { minutes: 5 } }] },
        { text: "I cannot pause." },
      ],
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "rest" },
      kit.deps,
    );
    expect(returns(transcript(turn.messages))[0]).toContain(
      "pause_heartbeats error: tool 'pause_heartbeats' is not offered",
    );
    expect(turn.state.pause_until_ms).toBeNull();
    expect(
      model.requests[0]?.tools.some(
        (tool) => "request_heartbeat" in (tool.parameters.properties as object),
      ),
    ).toBe(false);
  });

  it("refuses a block write past the block's limit and leaves the block as it was", async () => {
    const long = "x".repeat(5001);
    const model = createSimModel({
      script: [
        {
          toolCalls: [
            {
              name: "core_memory_append",
              args: { label: "human", content: long, request_heartbeat: false },
            },
          ],
        },
        {
          toolCalls: [
            { name: "send_message", args: { message: "too long", request_heartbeat: false } },
          ],
        },
      ],
    });
    const kit = await loopKit({ type: "memgpt_agent", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "store this" },
      kit.deps,
    );
    expect(returns(transcript(turn.messages))).toEqual([
      "tool_return_message: core_memory_append error: block 'human' would hold 5001 characters, over its limit of 5000; shorten or replace existing text first",
      "tool_return_message: send_message success: sent",
    ]);
    const human = (await kit.store.loadBlocks(kit.agent.id)).find(
      (block) => block.label === "human",
    );
    expect(human?.value).toBe("");
  });

  it("refuses to write a read-only block", async () => {
    const model = createSimModel({
      script: [
        {
          toolCalls: [
            {
              name: "memory_replace",
              args: { label: "persona", old_str: "helpful", new_str: "evil" },
            },
          ],
        },
        { text: "no" },
      ],
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const blocks = await kit.store.loadBlocks(kit.agent.id);
    for (const block of blocks) {
      await kit.store.putBlock(kit.agent.id, { ...block, read_only: block.label === "persona" });
    }
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "change yourself" },
      kit.deps,
    );
    expect(returns(transcript(turn.messages))).toEqual([
      "tool_return_message: memory_replace error: block 'persona' is read-only",
    ]);
  });

  it("answers malformed arguments with an error instead of running the tool", async () => {
    const model = createSimModel({
      script: (_request, call) =>
        call === 0
          ? { toolCalls: [{ name: "memory_insert", args: { label: 7 } }] }
          : { text: "fixed" },
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(returns(transcript(turn.messages))[0]).toMatch(
      /memory_insert error: invalid arguments: label: .*new_str/,
    );
  });

  it("stops with max_steps at the type's max_iterations, not a hard-coded number", async () => {
    const model = createSimModel({
      script: () => ({
        toolCalls: [{ name: "conversation_search", args: { query: "x", request_heartbeat: true } }],
      }),
    });
    const kit = await loopKit({
      type: "memgpt_agent",
      model,
      overrides: { limits: { max_iterations: 3 } },
    });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "loop forever" },
      kit.deps,
    );
    expect(turn.stopReason).toBe("max_steps");
    expect(model.requests).toHaveLength(3);
  });

  it("makes one final call without tools at the limit when the type asks for a final answer", async () => {
    const model = createSimModel({
      script: (request) =>
        request.tools.length > 0
          ? { toolCalls: [{ name: "conversation_search", args: { query: "x" } }] }
          : { text: "Final answer." },
    });
    const config = {
      types: { finisher: { extends: "letta_v1_agent", final_answer_at_limit: true } },
    };
    const kit = await loopKit({
      type: "finisher",
      model,
      config,
      overrides: { limits: { max_iterations: 2 } },
    });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "work" },
      kit.deps,
    );
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2]?.tools).toEqual([]);
    expect(transcript(turn.messages).at(-1)).toBe("assistant_message: Final answer.");
    expect(turn.stopReason).toBe("max_steps");
  });

  it("stops with llm_api_error when the model fails, closing the turn cleanly", async () => {
    const model = createSimModel({ fault: () => "server" });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
    expect(turn.stopReason).toBe("llm_api_error");
    expect(turn.state.phase).toBe("idle");
    expect(kit.events).toContainEqual({
      type: "error",
      message: "sim: injected server",
      retryable: true,
      kind: "server",
    });
  });

  it("stops with max_tokens_exceeded past the turn's token budget and closes open calls", async () => {
    const model = createSimModel({
      script: [{ toolCalls: [{ name: "conversation_search", args: { query: "x" } }] }],
    });
    const kit = await loopKit({
      type: "letta_v1_agent",
      model,
      overrides: { limits: { max_tokens_per_turn: 10 } },
    });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
    expect(turn.stopReason).toBe("max_tokens_exceeded");
    expect(returns(transcript(turn.messages))).toEqual([
      "tool_return_message: conversation_search error: not run: the turn stopped (max_tokens_exceeded)",
    ]);
  });

  it("cancels at the next step boundary when the signal aborts", async () => {
    const controller = new AbortController();
    const model = createSimModel({
      script: () => {
        controller.abort();
        return { toolCalls: [{ name: "conversation_search", args: { query: "x" } }] };
      },
    });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "hi" },
      { ...kit.deps, signal: controller.signal },
    );
    expect(turn.stopReason).toBe("cancelled");
    expect(returns(transcript(turn.messages))).toEqual([
      "tool_return_message: conversation_search error: not run: the turn stopped (cancelled)",
    ]);
  });
});
