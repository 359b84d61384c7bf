import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import { type FakeProviderServer, startFakeProvider } from "./support/fake-provider-server.js";
import { startTestServer } from "./support/server-kit.js";
import { anthropicWire } from "./support/wire/anthropic.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A type on Anthropic that falls back to OpenAI, as a config file would name it. */
function steadyConfig() {
  const checked = checkConfig({
    types: {
      steady: {
        extends: "letta_v1_agent",
        model: "anthropic/claude-sonnet-4-5",
        model_fallbacks: ["openai/gpt-4.1-mini"],
      },
    },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

async function fakes(primary: FakeProviderServer, fallback: FakeProviderServer) {
  cleanups.push(primary.close, fallback.close);
  const server = await startTestServer({
    config: steadyConfig(),
    env: {
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: primary.baseUrl,
      OPENAI_API_KEY: "sk-fake",
      OPENAI_BASE_URL: fallback.baseUrl,
    },
  });
  cleanups.push(server.close);
  return server;
}

describe("model fallbacks through the whole server", () => {
  it("answers from the fallback while the primary is overloaded, and the run view names it", async () => {
    // The primary's own retries (four attempts) all meet an overloaded server.
    const overloaded = { type: "failure", kind: "overloaded" } as const;
    const primary = await startFakeProvider(anthropicWire, Array(4).fill(overloaded));
    const fallback = await startFakeProvider(openAiChatWire, [
      { type: "completion", text: "Hello from the fallback." },
    ]);
    const server = await fakes(primary, fallback);
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "steady" } as never);

    const reply = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "hi" }],
    });
    const answer = reply.messages.find((m) => m.message_type === "assistant_message");
    expect(answer).toMatchObject({ content: "Hello from the fallback." });
    expect(primary.requests).toHaveLength(4);
    expect(fallback.requests).toHaveLength(1);

    const runs = (await (await fetch(`${server.url}/v1/runs?agent_id=${agent.id}`)).json()) as {
      id: string;
      status: string;
      models: string[];
    }[];
    expect(runs).toEqual([
      expect.objectContaining({ status: "completed", models: ["openai/gpt-4.1-mini"] }),
    ]);
    const run = (await (await fetch(`${server.url}/v1/runs/${runs[0]?.id}`)).json()) as {
      models: string[];
    };
    expect(run.models).toEqual(["openai/gpt-4.1-mini"]);
  });

  it("refuses an agent of a type whose fallback provider has no key", async () => {
    const server = await startTestServer({
      config: steadyConfig(),
      env: { ANTHROPIC_API_KEY: "sk-ant-fake" },
    });
    cleanups.push(server.close);
    const response = await fetch(`${server.url}/v1/agents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_type: "steady" }),
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toMatch(/fallback model 'openai\/gpt-4.1-mini'/);
  });
});
