import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { checkConfig } from "../src/config/config-file.js";
import { createModel } from "../src/llm/create-model.js";
import type { ReasoningSettings } from "../src/types/agent-type.js";
import { type FakeProviderServer, startFakeProvider } from "./support/fake-provider-server.js";
import { loopKit } from "./support/loop-kit.js";
import { PROVIDER_CASES, type ProviderCase } from "./support/provider-cases.js";

type Body = Record<string, unknown>;

let fake: FakeProviderServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ON: ReasoningSettings = { enabled: true, budget_tokens: 2048, effort: null };
const OFF: ReasoningSettings = { enabled: false, budget_tokens: null, effort: null };

/** The body of the one request a turn sends, with the agent's reasoning settings. */
async function requestWith(provider: ProviderCase, reasoning: ReasoningSettings | null) {
  fake = await startFakeProvider(provider.wire, [{ type: "completion", text: "Hello." }]);
  const model = createModel(provider.handle, { env: provider.env(fake) });
  const kit = await loopKit({ type: "letta_v1_agent", model, overrides: { reasoning } });
  const result = await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
  expect(result.stopReason).toBe("end_turn");
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]?.body as Body;
}

const byName = (name: string): ProviderCase => {
  const found = PROVIDER_CASES.find((provider) => provider.name === name);
  if (!found) throw new Error(`no provider case ${name}`);
  return found;
};

const ANTHROPIC = byName("Anthropic Messages");
const RESPONSES = byName("OpenAI Responses");
const GEMINI = byName("Google Gemini");
const CHAT = byName("OpenAI chat completions");
const OLLAMA = byName("Ollama");

const generationConfig = (body: Body) => body.generationConfig as Body | undefined;

describe("reasoning asked of each provider, as its fake server receives it", () => {
  it("sends Anthropic extended thinking with the budget, on top of the answer's max_tokens", async () => {
    const body = await requestWith(ANTHROPIC, ON);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.max_tokens).toBe(4096 + 2048);
  });

  it("turns Anthropic thinking off explicitly", async () => {
    expect((await requestWith(ANTHROPIC, OFF)).thinking).toEqual({ type: "disabled" });
  });

  it("asks the OpenAI Responses API for an effort fitting the budget and a reasoning summary", async () => {
    const body = await requestWith(RESPONSES, ON);
    expect(body.reasoning).toEqual({ effort: "low", summary: "auto" });
  });

  it("sends OpenAI an explicit effort as given, and nothing when reasoning is off", async () => {
    const high = await requestWith(RESPONSES, { ...ON, effort: "high" });
    expect(high.reasoning).toEqual({ effort: "high", summary: "auto" });
    await fake?.close();
    expect((await requestWith(RESPONSES, OFF)).reasoning).toBeUndefined();
  });

  it("asks Gemini for its thoughts within the budget, and for none when reasoning is off", async () => {
    const on = await requestWith(GEMINI, ON);
    expect(generationConfig(on)?.thinkingConfig).toEqual({
      includeThoughts: true,
      thinkingBudget: 2048,
    });
    await fake?.close();
    const off = await requestWith(GEMINI, OFF);
    expect(generationConfig(off)?.thinkingConfig).toEqual({
      includeThoughts: false,
      thinkingBudget: 0,
    });
  });

  it("sends chat-completions servers a reasoning_effort", async () => {
    expect((await requestWith(OLLAMA, ON)).reasoning_effort).toBe("low");
    await fake?.close();
    expect((await requestWith(CHAT, { ...ON, effort: "medium" })).reasoning_effort).toBe("medium");
  });

  it.each(PROVIDER_CASES)(
    "sends no reasoning fields to $name when the type leaves reasoning unset",
    async (provider) => {
      const text = JSON.stringify(await requestWith(provider, null));
      expect(text).not.toMatch(/thinking|reasoning_effort|"reasoning"/);
    },
  );
});

describe("Anthropic thinking signatures", () => {
  it("stores the signed thinking of a tool call and sends it back, signed, on the next call", async () => {
    fake = await startFakeProvider(ANTHROPIC.wire, [
      {
        type: "completion",
        reasoning: "Store her name first.",
        toolCalls: [
          {
            id: "toolu_1",
            name: "memory_insert",
            arguments: JSON.stringify({ label: "human", new_str: "Ada" }),
          },
        ],
      },
      { type: "completion", text: "Hello Ada." },
    ]);
    const model = createModel(ANTHROPIC.handle, { env: ANTHROPIC.env(fake) });
    const kit = await loopKit({ type: "letta_v1_agent", model, overrides: { reasoning: ON } });
    const result = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "I am Ada" },
      kit.deps,
    );

    expect(result.stopReason).toBe("end_turn");
    const stored = (await kit.messages()).find((m) => m.message_type === "reasoning_message");
    expect(stored).toMatchObject({ reasoning: "Store her name first.", signature: "sig-fake" });
    const second = fake.requests[1]?.body as Body;
    const assistant = (second.messages as { role: string; content: Body[] }[]).find(
      (m) => m.role === "assistant",
    );
    expect(assistant?.content[0]).toEqual({
      type: "thinking",
      thinking: "Store her name first.",
      signature: "sig-fake",
    });
    expect(assistant?.content[1]).toMatchObject({ type: "tool_use", id: "toolu_1" });
  });

  it("never sends a signed thought to another provider", async () => {
    const { toSdkMessages } = await import("../src/llm/ai-sdk-adapter.js");
    const messages = [
      {
        role: "assistant" as const,
        content: "hi",
        toolCalls: [],
        reasoning: { text: "t", signature: "s" },
      },
    ];
    expect(JSON.stringify(toSdkMessages(messages))).not.toContain("reasoning");
    expect(JSON.stringify(toSdkMessages(messages, { signedReasoning: true }))).toContain(
      '"signature":"s"',
    );
  });
});

describe("reasoning in config", () => {
  it("gives a type reasoning settings, with defaults for what it leaves out", () => {
    const checked = checkConfig({
      types: { thinker: { extends: "react_agent", reasoning: { enabled: true } } },
    });
    expect(checked.ok && checked.config.registry.get("thinker")?.reasoning).toEqual({
      enabled: true,
      budget_tokens: null,
      effort: null,
    });
  });

  it("refuses a budget below Anthropic's minimum and an unknown field, at their paths", () => {
    const checked = checkConfig({
      types: {
        thinker: { extends: "react_agent", reasoning: { enabled: true, budget_tokens: 10, x: 1 } },
      },
    });
    expect(checked.ok).toBe(false);
    const paths = checked.ok ? [] : checked.errors.map((error) => error.path);
    expect(paths.join(" ")).toMatch(/types\.thinker\.reasoning/);
  });
});
