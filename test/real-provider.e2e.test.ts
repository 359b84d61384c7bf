import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./fake-openai-server.js";
import { startTestServer } from "./support/server-kit.js";

let provider: FakeOpenAiServer | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.close();
  server = undefined;
  provider = undefined;
});

describe("an agent on a real provider's code path, through the whole server", () => {
  it("creates an agent on an OpenAI-compatible model and streams its reply from the provider", async () => {
    provider = await startFakeOpenAiServer([
      {
        type: "completion",
        toolCalls: [
          { id: "call-1", name: "memory_insert", arguments: '{"label":"human","new_str":"Ada"}' },
        ],
      },
      { type: "completion", text: "Hello Ada, I will remember you." },
    ]);
    server = await startTestServer({
      env: { OPENAI_COMPATIBLE_BASE_URL: provider.baseUrl, OPENAI_COMPATIBLE_API_KEY: "k" },
    });
    const client = server.client();
    const agent = await client.agents.create({
      agent_type: "letta_v1_agent",
      model: "openai-compatible/fake-model",
    });
    expect(agent.llm_config).toMatchObject({
      model: "fake-model",
      model_endpoint_type: "openai-compatible",
    });

    const chunks: { message_type?: string; content?: unknown }[] = [];
    const stream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I am Ada" }],
      streaming: true,
      stream_tokens: true,
    });
    for await (const chunk of stream) chunks.push(chunk as (typeof chunks)[number]);
    const text = chunks
      .filter((c) => c.message_type === "assistant_message")
      .map((c) => c.content)
      .join("");
    expect(text).toBe("Hello Ada, I will remember you.");
    expect(chunks.map((c) => c.message_type)).toContain("tool_return_message");
    expect(
      (await client.agents.retrieve(agent.id)).blocks.find((b) => b.label === "human")?.value,
    ).toBe("Ada");
    expect(provider.requests).toHaveLength(2);
  });

  it("refuses an agent on a provider with no key, saying which variable to set", async () => {
    server = await startTestServer({ env: {} });
    await expect(
      server.client().agents.create({ model: "anthropic/claude-sonnet-4-5" }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "model", message: expect.stringContaining("ANTHROPIC_API_KEY") }] },
    });
  });
});
