import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createModel } from "../src/llm/create-model.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import {
  type FakeOpenAiServer,
  type ScriptedReply,
  startFakeOpenAiServer,
} from "./fake-openai-server.js";
import { loopKit } from "./support/loop-kit.js";

/** One memgpt turn: two tool calls in one response, then a reply through send_message. */
const SIM_SCRIPT: SimReply[] = [
  {
    text: "The user told me their name.",
    toolCalls: [
      {
        name: "core_memory_append",
        args: { label: "human", content: "Name: Ada", request_heartbeat: true },
      },
      { name: "conversation_search", args: { query: "Ada", request_heartbeat: true } },
    ],
  },
  {
    toolCalls: [
      {
        name: "send_message",
        args: { message: "Nice to meet you, Ada.", request_heartbeat: false },
      },
    ],
  },
];

/** The same turn in the OpenAI wire format, with arguments streamed in small fragments. */
const WIRE_SCRIPT: ScriptedReply[] = SIM_SCRIPT.map((reply, call) => ({
  type: "completion",
  ...(reply.text ? { text: reply.text } : {}),
  toolCalls: (reply.toolCalls ?? []).map((toolCall, i) => {
    const args = JSON.stringify(toolCall.args);
    return {
      id: `call-sim-${call}-${i}`,
      name: toolCall.name,
      arguments: args,
      fragments: args.match(/.{1,5}/g) ?? [],
    };
  }),
}));

let server: FakeOpenAiServer | undefined;
afterEach(async () => server?.close());

async function runTurn(model: ReturnType<typeof createSimModel> | ReturnType<typeof createModel>) {
  const kit = await loopKit({ type: "memgpt_agent", model });
  const turn = await sendUserMessage(
    kit.agent,
    await kit.session(),
    { content: "I am Ada" },
    kit.deps,
  );
  return { kit, turn };
}

describe("a real provider code path against a local OpenAI-compatible server", () => {
  it("produces the same transcript for a memgpt turn as the sim model, streaming deltas", async () => {
    server = await startFakeOpenAiServer(WIRE_SCRIPT);
    const env = {
      OPENAI_COMPATIBLE_BASE_URL: server.baseUrl,
      OPENAI_COMPATIBLE_API_KEY: "test-key",
    };
    const wire = await runTurn(createModel("openai-compatible/fake-model", { env }));
    const sim = await runTurn(createSimModel({ script: SIM_SCRIPT }));

    expect(wire.turn.stopReason).toBe("end_turn");
    expect(await wire.kit.messages()).toEqual(await sim.kit.messages());
    expect((await wire.kit.messages()).map((m) => m.message_type)).toEqual([
      "user_message",
      "reasoning_message",
      "tool_call_message",
      "tool_call_message",
      "tool_return_message",
      "tool_return_message",
      "tool_call_message",
      "tool_return_message",
    ]);
    const deltas = wire.kit.events.filter(
      (e) => e.type === "delta" && e.message_type === "tool_call_message",
    );
    expect(deltas.length).toBeGreaterThan(4);

    const [first, second] = server.requests.map((r) => r.body);
    if (!first || !second) throw new Error("expected two requests");
    expect(first.stream).toBe(true);
    expect((first.tools as { function: { name: string } }[]).map((t) => t.function.name)).toContain(
      "core_memory_append",
    );
    expect(first.tool_choice).toBe("required");
    const toolMessages = (second.messages as { role: string; tool_call_id?: string }[]).filter(
      (m) => m.role === "tool",
    );
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(["call-sim-0-0", "call-sim-0-1"]);
  });

  it("stops the turn with llm_api_error when the provider keeps failing", async () => {
    server = await startFakeOpenAiServer([{ type: "error", status: 401, message: "bad key" }]);
    const env = { OPENAI_COMPATIBLE_BASE_URL: server.baseUrl, OPENAI_COMPATIBLE_API_KEY: "wrong" };
    const { kit, turn } = await runTurn(createModel("openai-compatible/fake-model", { env }));
    expect(turn.stopReason).toBe("llm_api_error");
    expect(kit.events).toContainEqual(expect.objectContaining({ type: "error", retryable: false }));
    expect(server.requests).toHaveLength(1);
  });
});
