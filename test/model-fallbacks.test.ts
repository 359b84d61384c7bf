import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { checkConfig } from "../src/config/config-file.js";
import type { Clock } from "../src/core/clock.js";
import { seededRandom } from "../src/core/random.js";
import { createModel } from "../src/llm/create-model.js";
import { withFallbacks } from "../src/llm/fallback.js";
import { AgentOverrides } from "../src/types/overrides.js";
import {
  type FakeProviderServer,
  type ScriptedCompletion,
  type ScriptedReply,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { loopKit, transcript } from "./support/loop-kit.js";
import { anthropicWire } from "./support/wire/anthropic.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

const PRIMARY = "anthropic/claude-sonnet-4-5";
const FALLBACK = "openai/gpt-4.1-mini";

const ANSWER: ScriptedCompletion = {
  type: "completion",
  toolCalls: [
    {
      id: "call_1",
      name: "send_message",
      arguments: JSON.stringify({ message: "Hello Ada.", request_heartbeat: false }),
    },
  ],
};

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A clock whose sleeps return at once, so the primary's own retries cost no time. */
function instantClock(): Clock {
  let nowMs = Date.UTC(2026, 0, 1);
  return {
    now: () => nowMs,
    sleep: async (ms) => {
      nowMs += ms;
    },
  };
}

/**
 * A memgpt agent on a fake Anthropic server with a fake OpenAI server as its fallback; each
 * handle retries once on its own before the next one is tried.
 */
async function turnWithFallback(primary: ScriptedReply[], fallback: ScriptedReply[]) {
  const anthropic = await startFakeProvider(anthropicWire, primary);
  const openai = await startFakeProvider(openAiChatWire, fallback);
  servers.push(anthropic, openai);
  const env = {
    ANTHROPIC_API_KEY: "sk-ant-fake",
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    OPENAI_API_KEY: "sk-fake",
    OPENAI_BASE_URL: openai.baseUrl,
  };
  const options = {
    env,
    clock: instantClock(),
    random: seededRandom(3),
    retry: { maxAttempts: 2 },
  };
  const model = withFallbacks([createModel(PRIMARY, options), createModel(FALLBACK, options)]);
  const kit = await loopKit({ type: "memgpt_agent", model });
  const result = await sendUserMessage(
    kit.agent,
    await kit.session(),
    { content: "I am Ada" },
    kit.deps,
  );
  const run = await kit.store.getRun(result.state.run_id ?? "");
  return { kit, result, run, anthropic, openai };
}

describe("model fallbacks against fake provider servers", () => {
  it.each(["overloaded", "server"] as const)(
    "answers from the fallback once the primary stays %s past its retries, and the run says so",
    async (kind) => {
      const down: ScriptedReply = { type: "failure", kind };
      const { kit, result, run, anthropic, openai } = await turnWithFallback(
        [down, down],
        [ANSWER],
      );

      expect(result.stopReason).toBe("end_turn");
      expect(anthropic.requests).toHaveLength(2);
      expect(openai.requests).toHaveLength(1);
      expect(transcript(await kit.messages()).at(-2)).toMatch(/send_message/);
      expect(run?.models).toEqual([FALLBACK]);
      expect(run?.status).toBe("completed");
      expect(kit.events.filter((e) => e.type === "model_fallback")).toEqual([
        expect.objectContaining({ from: PRIMARY, to: FALLBACK, kind: RETRY_KIND[kind] }),
      ]);
      expect(kit.events.filter((e) => e.type === "error")).toEqual([]);
    },
  );

  it("records the primary as the answering model when it is up, without asking the fallback", async () => {
    const { result, run, openai } = await turnWithFallback([ANSWER], []);
    expect(result.stopReason).toBe("end_turn");
    expect(run?.models).toEqual([PRIMARY]);
    expect(openai.requests).toHaveLength(0);
  });

  it("does not fall back when the prompt is too long: the turn ends with llm_api_error", async () => {
    const tooLong: ScriptedReply = { type: "failure", kind: "context_too_long" };
    const { kit, result, run, anthropic, openai } = await turnWithFallback([tooLong], [ANSWER]);

    expect(result.stopReason).toBe("llm_api_error");
    expect(anthropic.requests).toHaveLength(1);
    expect(openai.requests).toHaveLength(0);
    expect(run?.models).toEqual([]);
    expect(kit.events.filter((e) => e.type === "error")).toEqual([
      {
        type: "error",
        retryable: false,
        kind: "context_overflow",
        message: expect.stringMatching(/tokens/),
      },
    ]);
  });

  it.each([
    ["a bad request (400)", { type: "error", status: 400, message: "messages: invalid" }],
    ["a bad key (401)", { type: "error", status: 401, message: "invalid x-api-key" }],
    ["a refusal", { type: "completion", refusal: "I can't help with that." }],
  ] as const)("does not fall back on %s", async (_, reply) => {
    const { result, openai } = await turnWithFallback([reply as ScriptedReply], [ANSWER]);
    expect(result.stopReason).toBe("llm_api_error");
    expect(openai.requests).toHaveLength(0);
  });

  it("ends the turn with llm_api_error naming each handle's failure when every handle is down", async () => {
    const overloaded: ScriptedReply = { type: "failure", kind: "overloaded" };
    const broken: ScriptedReply = { type: "failure", kind: "server" };
    const { kit, result, run, anthropic, openai } = await turnWithFallback(
      [overloaded, overloaded],
      [broken, broken],
    );

    expect(result.stopReason).toBe("llm_api_error");
    expect(anthropic.requests).toHaveLength(2);
    expect(openai.requests).toHaveLength(2);
    expect(run?.status).toBe("failed");
    const [error] = kit.events.filter((e) => e.type === "error");
    expect(error).toMatchObject({ retryable: true });
    const message = error?.type === "error" ? error.message : "";
    expect(message).toMatch(/^every model failed/);
    expect(message).toContain(`${PRIMARY}: `);
    expect(message).toContain(`${FALLBACK}: `);
  });
});

const RETRY_KIND = { overloaded: "overloaded", server: "server" } as const;

describe("model_fallbacks in config", () => {
  const typeWith = (fallbacks: unknown) =>
    checkConfig({ types: { steady: { extends: "memgpt_agent", model_fallbacks: fallbacks } } });

  it("gives a type its fallback handles, in order", () => {
    const checked = typeWith([FALLBACK, "google/gemini-2.5-flash"]);
    expect(checked.ok && checked.config.registry.get("steady")?.model_fallbacks).toEqual([
      FALLBACK,
      "google/gemini-2.5-flash",
    ]);
  });

  it("refuses a fallback of an unknown provider, at its path", () => {
    const checked = typeWith(["opnai/gpt-4.1"]);
    expect(checked.ok).toBe(false);
    expect(JSON.stringify(checked.ok ? null : checked.errors)).toMatch(
      /types\.steady\.model_fallbacks\.0.*unknown model provider 'opnai'/,
    );
  });

  it("refuses a fallback named twice and more than four", () => {
    expect(typeWith([FALLBACK, FALLBACK]).ok).toBe(false);
    expect(typeWith(["sim/a", "sim/b", "sim/c", "sim/d", "sim/e"]).ok).toBe(false);
  });

  it("refuses a type's primary model of an unknown provider", () => {
    const checked = checkConfig({ types: { steady: { extends: "memgpt_agent", model: "x/y" } } });
    expect(checked.ok).toBe(false);
  });

  it("lets an agent replace or turn off its type's fallbacks, checked like the type's", () => {
    expect(AgentOverrides.safeParse({ model_fallbacks: [] }).success).toBe(true);
    expect(AgentOverrides.safeParse({ model_fallbacks: [FALLBACK] }).success).toBe(true);
    expect(AgentOverrides.safeParse({ model_fallbacks: ["nope/x"] }).success).toBe(false);
  });
});
