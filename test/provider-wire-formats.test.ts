import { generateText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import type { Clock } from "../src/core/clock.js";
import { seededRandom } from "../src/core/random.js";
import { createModel } from "../src/llm/create-model.js";
import { ModelError } from "../src/llm/model-error.js";
import {
  type FailureKind,
  type FakeProviderServer,
  type ScriptedCompletion,
  type ScriptedReply,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { loopKit, transcript } from "./support/loop-kit.js";
import { PROVIDER_CASES, type ProviderCase } from "./support/provider-cases.js";
import { geminiWire } from "./support/wire/gemini.js";

/** A memgpt turn: two tool calls in one response, then the answer through send_message. */
const TWO_CALLS: ScriptedCompletion[] = [
  {
    type: "completion",
    text: "The user told me their name.",
    toolCalls: [
      call("call_1", "core_memory_append", {
        label: "human",
        content: "Name: Ada",
        request_heartbeat: true,
      }),
      call("call_2", "conversation_search", { query: "Ada", request_heartbeat: true }),
    ],
  },
  {
    type: "completion",
    toolCalls: [
      call("call_3", "send_message", {
        message: "Nice to meet you, Ada.",
        request_heartbeat: false,
      }),
    ],
  },
];

const TWO_CALLS_TRANSCRIPT = [
  "user_message: I am Ada",
  "reasoning_message: The user told me their name.",
  `tool_call_message: core_memory_append ${args(TWO_CALLS, 0, 0)}`,
  `tool_call_message: conversation_search ${args(TWO_CALLS, 0, 1)}`,
  "tool_return_message: core_memory_append success: block 'human' now holds 9 of 5000 characters",
  // The turn's own question is left out of its search (issue 13).
  'tool_return_message: conversation_search success: {"message":"No results found.","results":[]}',
  `tool_call_message: send_message ${args(TWO_CALLS, 1, 0)}`,
  "tool_return_message: send_message success: sent",
];

/** What a successful turn after a failure looks like: one call, straight to the answer. */
const ANSWER: ScriptedCompletion = {
  type: "completion",
  toolCalls: [call("call_9", "send_message", { message: "Hello.", request_heartbeat: false })],
};

function call(id: string, name: string, value: Record<string, unknown>) {
  const text = JSON.stringify(value);
  return { id, name, arguments: text, fragments: text.match(/.{1,5}/g) ?? [] };
}

function args(script: ScriptedCompletion[], reply: number, index: number): string {
  return script[reply]?.toolCalls?.[index]?.arguments ?? "";
}

/** A clock whose sleeps return at once and are written down, for the retry waits. */
function recordingClock(): Clock & { sleeps: number[] } {
  let nowMs = Date.UTC(2026, 0, 1);
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => nowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
      nowMs += ms;
    },
  };
}

let fake: FakeProviderServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(provider: ProviderCase, script: ScriptedReply[]) {
  fake = await startFakeProvider(provider.wire, script);
  return fake;
}

async function turn(provider: ProviderCase, server: FakeProviderServer, type = "memgpt_agent") {
  const clock = recordingClock();
  const model = createModel(provider.handle, {
    env: provider.env(server),
    clock,
    random: seededRandom(7),
  });
  const kit = await loopKit({ type, model });
  const result = await sendUserMessage(
    kit.agent,
    await kit.session(),
    { content: "I am Ada" },
    kit.deps,
  );
  return { kit, result, sleeps: clock.sleeps, model };
}

async function modelFailure(provider: ProviderCase, server: FakeProviderServer) {
  const model = createModel(provider.handle, {
    env: provider.env(server),
    retry: { maxAttempts: 1 },
  });
  const error = await model
    .generate({ system: "s", messages: [{ role: "user", content: "hi" }], tools: [] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

const RETRYABLE_KIND: Record<FailureKind, string> = {
  rate_limit: "rate_limit",
  server: "server",
  overloaded: "overloaded",
  context_too_long: "context_overflow",
};

describe.each(PROVIDER_CASES)("a turn against a fake $name server", (provider) => {
  it("answers a message through two tool calls in one response, their returns, and send_message", async () => {
    const server = await serve(provider, TWO_CALLS);
    const { kit, result } = await turn(provider, server);

    expect(result.stopReason).toBe("end_turn");
    expect(transcript(await kit.messages())).toEqual(TWO_CALLS_TRANSCRIPT);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.path).toBe(second?.path);
    expect(provider.toolResults(first?.body ?? {})).toEqual([]);
    expect(provider.toolResults(second?.body ?? {})).toEqual(
      provider.wire === geminiWire
        ? ["core_memory_append", "conversation_search"]
        : ["call_1", "call_2"],
    );
    expect(JSON.stringify(first?.body)).toContain("core_memory_append");
  });

  it("streams the reasoning and each tool call's arguments as Letta message deltas", async () => {
    const server = await serve(provider, TWO_CALLS);
    const { kit } = await turn(provider, server);

    const deltas = kit.events.flatMap((e) => (e.type === "delta" ? [e] : []));
    const reasoning = deltas.filter((d) => d.message_type === "reasoning_message");
    expect(reasoning.length).toBeGreaterThan(1);
    expect(reasoning.map((d) => ("text" in d ? d.text : "")).join("")).toBe(
      "The user told me their name.",
    );
    expect(
      deltas.filter((d) => d.message_type === "tool_call_message").length,
    ).toBeGreaterThanOrEqual(3);
    expect(server.requests.every((r) => JSON.stringify(r.body).length > 0)).toBe(true);
  });

  it("streams a plain answer token by token as an assistant_message", async () => {
    const server = await serve(provider, [
      { type: "completion", text: "Hello Ada, welcome back." },
    ]);
    const { kit, result } = await turn(provider, server, "letta_v1_agent");

    expect(result.stopReason).toBe("end_turn");
    expect(transcript(await kit.messages())).toEqual([
      "user_message: I am Ada",
      "assistant_message: Hello Ada, welcome back.",
    ]);
    const text = kit.events.flatMap((e) =>
      e.type === "delta" && e.message_type === "assistant_message" && "text" in e ? [e.text] : [],
    );
    expect(text.length).toBeGreaterThan(1);
    expect(text.join("")).toBe("Hello Ada, welcome back.");
  });

  // OpenAI's own chat completions never carry reasoning text, only its token count.
  it.runIf(provider.streamsReasoning)(
    "streams the model's reasoning token by token as a reasoning_message before the answer",
    async () => {
      const reasoning = "Ada introduced herself; greet her.";
      const server = await serve(provider, [{ type: "completion", reasoning, text: "Hello Ada." }]);
      const { kit, result } = await turn(provider, server, "letta_v1_agent");

      expect(result.stopReason).toBe("end_turn");
      expect(transcript(await kit.messages())).toEqual([
        "user_message: I am Ada",
        `reasoning_message: ${reasoning}`,
        "assistant_message: Hello Ada.",
      ]);
      const deltas = kit.events.flatMap((e) => (e.type === "delta" ? [e] : []));
      const thought = deltas.filter((d) => d.message_type === "reasoning_message");
      expect(thought.length).toBeGreaterThan(1);
      expect(thought.map((d) => ("text" in d ? d.text : "")).join("")).toBe(reasoning);
      const firstAnswer = deltas.findIndex((d) => d.message_type === "assistant_message");
      expect(
        deltas.slice(0, firstAnswer).every((d) => d.message_type === "reasoning_message"),
      ).toBe(true);
    },
  );

  it("reads the provider's non-streamed JSON reply with text and two tool calls", async () => {
    const server = await serve(provider, [
      { ...TWO_CALLS[0], type: "completion", usage: { promptTokens: 31, completionTokens: 9 } },
    ]);
    const result = await generateText({
      model: provider.sdkModel(server),
      prompt: "I am Ada",
      tools: {},
      maxRetries: 0,
    });
    expect(result.text).toBe("The user told me their name.");
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual(
      (TWO_CALLS[0]?.toolCalls ?? []).map((c) => [c.name, JSON.parse(c.arguments)]),
    );
    expect(result.usage.inputTokens).toBe(31);
    expect(server.requests[0]?.body.stream).not.toBe(true);
  });

  const retryable = provider.failures.filter((kind) => kind !== "context_too_long");
  it.each(retryable)("retries a %s failure and then finishes the turn", async (kind) => {
    const server = await serve(provider, [{ type: "failure", kind, retryAfterS: 7 }, ANSWER]);
    const { result, sleeps } = await turn(provider, server);

    expect(result.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    // Backoff starts near one second; only a provider's own wait makes it seven.
    if (kind === "rate_limit") expect(sleeps[0]).toBe(7_000);
    else expect(sleeps[0]).toBeLessThanOrEqual(1_000);
  });

  it("ends the turn with llm_api_error once a provider stays overloaded past the retry budget", async () => {
    const overloaded: ScriptedReply = { type: "failure", kind: "overloaded" };
    const server = await serve(provider, [overloaded, overloaded, overloaded, overloaded]);
    const { kit, result, sleeps } = await turn(provider, server);

    expect(result.stopReason).toBe("llm_api_error");
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(kit.events.filter((e) => e.type === "error")).toEqual([
      {
        type: "error",
        retryable: true,
        kind: "overloaded",
        message: expect.stringMatching(/overloaded|busy/i),
      },
    ]);
  });

  it.each(provider.failures)("classifies a %s failure by its kind", async (kind) => {
    const server = await serve(provider, [{ type: "failure", kind, retryAfterS: 7 }]);
    const error = await modelFailure(provider, server);
    expect(error.kind).toBe(RETRYABLE_KIND[kind]);
    expect(error.retryable).toBe(kind !== "context_too_long");
    if (kind === "rate_limit") expect(error.retryAfterMs).toBe(7_000);
  });

  it.each(provider.midStream)("retries a %s error sent inside the stream", async (kind) => {
    const server = await serve(provider, [{ type: "failure", kind, midStream: true }, ANSWER]);
    const { result } = await turn(provider, server);
    expect(result.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(2);
  });

  if (provider.failures.includes("context_too_long")) {
    it("ends the turn with llm_api_error and the provider's words when the prompt is too long", async () => {
      const server = await serve(provider, [{ type: "failure", kind: "context_too_long" }]);
      const { kit, result } = await turn(provider, server);

      expect(result.stopReason).toBe("llm_api_error");
      expect(server.requests).toHaveLength(1);
      const errors = kit.events.filter((e) => e.type === "error");
      expect(errors).toEqual([
        {
          type: "error",
          retryable: false,
          kind: "context_overflow",
          message: expect.stringMatching(/tokens/),
        },
      ]);
    });
  }

  if (provider.refuses) {
    it("ends the turn with llm_api_error when the model refuses, without asking again", async () => {
      const refusal = "I can't help with that.";
      const server = await serve(provider, [{ type: "completion", refusal }]);
      const { kit, result } = await turn(provider, server);

      expect(result.stopReason).toBe("llm_api_error");
      expect(server.requests).toHaveLength(1);
      const errors = kit.events.filter((e) => e.type === "error");
      expect(errors).toEqual([
        {
          type: "error",
          retryable: false,
          kind: "refused",
          message: expect.stringMatching(/^the model refused/),
        },
      ]);
    });

    it("classifies a refusal as a terminal refused error", async () => {
      const server = await serve(provider, [{ type: "completion", refusal: "No." }]);
      expect(await modelFailure(provider, server)).toMatchObject({
        kind: "refused",
        retryable: false,
      });
    });
  }
});
