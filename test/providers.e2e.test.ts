import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeProviderServer,
  type ScriptedReply,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { PROVIDER_CASES, type ProviderCase } from "./support/provider-cases.js";
import { startTestServer } from "./support/server-kit.js";

let fake: FakeProviderServer | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  server = undefined;
  fake = undefined;
});

type Chunk = { message_type?: string; content?: unknown; stop_reason?: string };

async function agentOn(provider: ProviderCase, script: ScriptedReply[]) {
  fake = await startFakeProvider(provider.wire, script);
  server = await startTestServer({ env: provider.env(fake) });
  const client = server.client();
  const agent = await client.agents.create({
    agent_type: "letta_v1_agent",
    model: provider.handle,
  });
  const send = async (chunks: Chunk[]) => {
    const stream = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "I am Ada" }],
      streaming: true,
      stream_tokens: true,
    });
    for await (const chunk of stream) chunks.push(chunk as Chunk);
  };
  return { client, agent, send };
}

/** A failure the provider ends a turn with: its context error, or Ollama's missing model. */
function terminalFailure(provider: ProviderCase): { reply: ScriptedReply; says: RegExp } {
  if (provider.failures.includes("context_too_long")) {
    return { reply: { type: "failure", kind: "context_too_long" }, says: /token/ };
  }
  const message = 'model "qwen3:8b" not found, try pulling it first';
  return { reply: { type: "error", status: 404, message }, says: /not found/ };
}

describe.each(PROVIDER_CASES)("an agent on $name, through the whole server", (provider) => {
  it("streams a turn with a tool call and its answer as Letta messages", async () => {
    const { client, agent, send } = await agentOn(provider, [
      {
        type: "completion",
        toolCalls: [
          { id: "call-1", name: "memory_insert", arguments: '{"label":"human","new_str":"Ada"}' },
        ],
      },
      { type: "completion", text: "Hello Ada, I will remember you." },
    ]);
    expect(agent.llm_config).toMatchObject({ handle: provider.handle });

    const chunks: Chunk[] = [];
    await send(chunks);
    const answer = chunks.filter((c) => c.message_type === "assistant_message");
    expect(answer.length).toBeGreaterThan(1);
    expect(answer.map((c) => c.content).join("")).toBe("Hello Ada, I will remember you.");
    expect(chunks.map((c) => c.message_type)).toContain("tool_return_message");
    expect(chunks.find((c) => c.message_type === "stop_reason")?.stop_reason).toBe("end_turn");
    const human = (await client.agents.retrieve(agent.id)).blocks.find((b) => b.label === "human");
    expect(human?.value).toBe("Ada");
    expect(fake?.requests).toHaveLength(2);
  });

  it("ends the stream with the provider's error when the request cannot succeed", async () => {
    const { reply, says } = terminalFailure(provider);
    const { send } = await agentOn(provider, [reply]);
    const chunks: Chunk[] = [];
    await expect(send(chunks)).rejects.toThrow(says);
    expect(fake?.requests).toHaveLength(1);
  });
});
