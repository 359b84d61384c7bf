import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createModel } from "../src/llm/create-model.js";
import {
  type FakeProviderServer,
  type ScriptedCompletion,
  startFakeProvider,
  type WireFormat,
} from "./support/fake-provider-server.js";
import { loopKit } from "./support/loop-kit.js";
import { anthropicWire } from "./support/wire/anthropic.js";
import { geminiWire } from "./support/wire/gemini.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An answer through send_message, with the prompt-cache counts a provider reports. */
function answer(message: string, cachedTokens: number, cacheWriteTokens = 0): ScriptedCompletion {
  return {
    type: "completion",
    usage: { promptTokens: 1_000, completionTokens: 20, cachedTokens, cacheWriteTokens },
    toolCalls: [
      {
        id: `call_${message.length}`,
        name: "send_message",
        arguments: JSON.stringify({ message, request_heartbeat: false }),
      },
    ],
  };
}

/** Two turns of a memgpt agent against `wire`; returns the requests and both runs. */
async function twoTurns(wire: WireFormat, handle: string, env: (url: string) => object) {
  const provider = await startFakeProvider(wire, [answer("Hi Ada.", 0, 800), answer("Yes.", 900)]);
  servers.push(provider);
  const model = createModel(handle, { env: env(provider.baseUrl) as NodeJS.ProcessEnv });
  const kit = await loopKit({ type: "memgpt_agent", model });
  const runs = [];
  for (const content of ["I am Ada", "Do you remember me?"]) {
    const result = await sendUserMessage(kit.agent, await kit.session(), { content }, kit.deps);
    expect(result.stopReason).toBe("end_turn");
    runs.push(await kit.store.getRun(result.state.run_id ?? ""));
  }
  return { requests: provider.requests.map((request) => request.body), runs };
}

/** Every `cache_control` in a JSON body, with where it is. */
function breakpoints(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => breakpoints(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === "cache_control" ? [path] : breakpoints(inner, `${path}.${key}`),
  );
}

describe("prompt caching", () => {
  it("marks Anthropic's stable prefix with cache_control: the last tool, the system prompt with core memory, the newest message", async () => {
    const { requests } = await twoTurns(anthropicWire, "anthropic/claude-sonnet-4-5", (url) => ({
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: url,
    }));
    for (const body of requests) {
      const tools = body.tools as Record<string, unknown>[];
      const system = body.system as { text: string; cache_control?: unknown }[];
      const messages = body.messages as { content: Record<string, unknown>[] }[];
      const lastContent = messages.at(-1)?.content.at(-1);
      expect(system).toHaveLength(1);
      expect(system[0]?.text).toContain("<memory_blocks>");
      expect(system[0]?.cache_control).toEqual({ type: "ephemeral" });
      expect(tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(lastContent?.cache_control).toEqual({ type: "ephemeral" });
      // Anthropic accepts at most four breakpoints.
      const lastAt = `.messages[${messages.length - 1}].content[${(messages.at(-1)?.content.length ?? 0) - 1}]`;
      expect(breakpoints(body).sort()).toEqual(
        [".system[0]", `.tools[${tools.length - 1}]`, lastAt].sort(),
      );
    }
  });

  it("keeps the prefix stable between turns: the same tools and system prompt, the old messages first", async () => {
    const { requests } = await twoTurns(anthropicWire, "anthropic/claude-sonnet-4-5", (url) => ({
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: url,
    }));
    const [first, second] = requests;
    const withoutMarks = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value, (key, inner) => (key === "cache_control" ? undefined : inner)),
      );
    expect(withoutMarks(second?.tools)).toEqual(withoutMarks(first?.tools));
    expect(withoutMarks(second?.system)).toEqual(withoutMarks(first?.system));
    const before = withoutMarks(first?.messages) as unknown[];
    expect((withoutMarks(second?.messages) as unknown[]).slice(0, before.length)).toEqual(before);
  });

  it("records the cached and cache-written input tokens Anthropic reports in the run's usage", async () => {
    const { runs } = await twoTurns(anthropicWire, "anthropic/claude-sonnet-4-5", (url) => ({
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: url,
    }));
    expect(runs.map((run) => run?.usage)).toEqual([
      { prompt_tokens: 1_000, completion_tokens: 20, step_count: 1, cache_write_input_tokens: 800 },
      { prompt_tokens: 1_000, completion_tokens: 20, step_count: 1, cached_input_tokens: 900 },
    ]);
  });

  it("records OpenAI's cached prompt tokens, and sends OpenAI no cache_control", async () => {
    const { requests, runs } = await twoTurns(openAiChatWire, "openai/gpt-4.1-mini", (url) => ({
      OPENAI_API_KEY: "sk-fake",
      OPENAI_BASE_URL: url,
    }));
    for (const body of requests) expect(breakpoints(body)).toEqual([]);
    expect(runs[1]?.usage).toEqual({
      prompt_tokens: 1_000,
      completion_tokens: 20,
      step_count: 1,
      cached_input_tokens: 900,
    });
  });

  it("records Gemini's cachedContentTokenCount as cached input tokens, and sends Gemini no cache_control", async () => {
    const { requests, runs } = await twoTurns(geminiWire, "google/gemini-2.5-flash", (url) => ({
      GOOGLE_GENERATIVE_AI_API_KEY: "g-fake",
      GOOGLE_GENERATIVE_AI_BASE_URL: url,
    }));
    for (const body of requests) expect(breakpoints(body)).toEqual([]);
    // The first turn's reply reports no cached tokens (Gemini reports no cache writes).
    expect(runs.map((run) => run?.usage)).toEqual([
      { prompt_tokens: 1_000, completion_tokens: 20, step_count: 1 },
      { prompt_tokens: 1_000, completion_tokens: 20, step_count: 1, cached_input_tokens: 900 },
    ]);
  });
});
