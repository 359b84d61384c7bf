import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import {
  type FakeProviderServer,
  type ReplyFor,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { startTestServer } from "./support/server-kit.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const VERDICT = {
  type: "object",
  properties: {
    score: { type: "integer", minimum: 0, maximum: 100 },
    reasons: { type: "array", items: { type: "string" } },
  },
  required: ["score", "reasons"],
};

/** A `judge` type with the verdict schema, an answerer, and a chain grading the answer. */
function judgeConfig() {
  const checked = checkConfig({
    types: {
      judge: {
        extends: "scoring",
        model: "openai/judge-model",
        structured_output: { name: "verdict", schema: VERDICT },
      },
      answerer: { extends: "qa_assistant", model: "openai/answer-model" },
    },
    chains: {
      graded: {
        stages: [
          { name: "answer", agents: [{ type: "answerer" }] },
          { name: "grade", scoring: { type: "judge", min_score: 50 } },
        ],
      },
    },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

async function serve(replyFor: ReplyFor) {
  const provider: FakeProviderServer = await startFakeProvider(openAiChatWire, replyFor);
  cleanups.push(provider.close);
  const server = await startTestServer({
    config: judgeConfig(),
    env: { OPENAI_API_KEY: "sk-fake", OPENAI_BASE_URL: provider.baseUrl },
  });
  cleanups.push(server.close);
  return { provider, server };
}

const say = (text: string) => ({ type: "completion" as const, text });

describe("structured output through the server and Letta's client", () => {
  it("returns the validated JSON as the assistant message, asked of OpenAI as a json_schema", async () => {
    const { provider, server } = await serve(() => say('{"score": 88, "reasons": ["right"]}'));
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "judge" } as never);
    const reply = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "Task: 2+2. Answer: 4" }],
    });
    const answer = reply.messages.find((m) => m.message_type === "assistant_message");
    expect(answer).toMatchObject({ content: '{"score":88,"reasons":["right"]}' });
    expect(provider.requests[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: {
        name: "verdict",
        schema: expect.objectContaining({ required: ["score", "reasons"] }),
      },
    });
  });

  it("fails the run after one repair, naming the violation, and the run records it", async () => {
    const { provider, server } = await serve(() => say('{"score": "high"}'));
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "judge" } as never);
    const sent = client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "grade this" }],
    });
    // Letta's error body: its generic message, and the violation in `detail`.
    const error = (await sent.then(
      () => null,
      (caught: unknown) => caught,
    )) as { status?: number; error?: { detail?: string } } | null;
    expect(error?.status).toBe(500);
    expect(error?.error?.detail).toBe(
      "the model's reply does not match the output schema 'verdict' after one repair: " +
        "at /reasons: must have required property 'reasons'; at /score: must be integer",
    );
    expect(provider.requests).toHaveLength(2);
    const runs = (await (await fetch(`${server.url}/v1/runs?agent_id=${agent.id}`)).json()) as {
      status: string;
      stop_reason: string;
    }[];
    expect(runs).toEqual([
      expect.objectContaining({ status: "failed", stop_reason: "invalid_llm_response" }),
    ]);
  });

  it("gates a chain on the structured score and keeps the whole verdict on the run", async () => {
    const { server } = await serve((request) =>
      request.body.model === "judge-model"
        ? // A `score: 10` line in the reasons must not be read: the score is the field.
          say('{"score": 72, "reasons": ["score: 10 would be unfair", "complete"]}')
        : say("4"),
    );
    const response = await fetch(`${server.url}/v1/chains/graded/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "2+2?" }),
    });
    const run = (await response.json()) as { status: string; score: unknown };
    expect(response.status).toBeLessThan(300);
    expect(run.status).toBe("completed");
    expect(run.score).toEqual({
      value: 72,
      min_score: 50,
      passed: true,
      result: { score: 72, reasons: ["score: 10 would be unfair", "complete"] },
    });
  });
});
