import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../src/core/clock.js";
import { seededRandom } from "../src/core/random.js";
import { createAiSdkAdapter } from "../src/llm/ai-sdk-adapter.js";
import type { ModelAdapter, ModelDelta, ModelRequest } from "../src/llm/model.js";
import { ModelError } from "../src/llm/model-error.js";
import { withRetries } from "../src/llm/retry.js";
import {
  type FakeOpenAiServer,
  type ScriptedReply,
  startFakeOpenAiServer,
} from "./fake-openai-server.js";

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ScriptedReply[]): Promise<FakeOpenAiServer> {
  server = await startFakeOpenAiServer(script);
  return server;
}

/** Both routes to a chat-completions server: the generic one and the OpenAI provider's. */
const ROUTES = [
  {
    name: "openai-compatible/NAME",
    handle: "openai-compatible/local-llama",
    model: "local-llama",
    env: (baseUrl: string) => ({
      OPENAI_COMPATIBLE_BASE_URL: baseUrl,
      OPENAI_COMPATIBLE_API_KEY: "compat-key",
    }),
    authorization: "Bearer compat-key",
  },
  {
    name: "openai/MODEL with OPENAI_BASE_URL",
    handle: "openai/gpt-4.1-mini",
    model: "gpt-4.1-mini",
    env: (baseUrl: string) => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: baseUrl }),
    authorization: "Bearer sk-test",
  },
] as const;

const WEATHER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city"],
  additionalProperties: false,
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You are terse.",
    messages: [{ role: "user", content: "Hi" }],
    tools: [],
    ...overrides,
  };
}

async function collect(adapter: ModelAdapter, req: ModelRequest) {
  const deltas: ModelDelta[] = [];
  const response = await adapter.generate(req, (delta) => deltas.push(delta));
  return { response, deltas };
}

async function failure(adapter: ModelAdapter, req = request()): Promise<ModelError> {
  const error = await adapter.generate(req).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe.each(ROUTES)("the AI SDK adapter through $name", (route) => {
  const adapterFor = (fake: FakeOpenAiServer) =>
    createAiSdkAdapter(route.handle, {}, { env: route.env(fake.baseUrl) });

  it("streams text deltas in order and resolves with the whole text and usage", async () => {
    const fake = await serve([
      {
        type: "completion",
        text: "Hello there, friend!",
        usage: { promptTokens: 21, completionTokens: 4 },
      },
    ]);
    const { response, deltas } = await collect(adapterFor(fake), request());

    expect(response).toEqual({
      text: "Hello there, friend!",
      reasoning: "",
      toolCalls: [],
      usage: { inputTokens: 21, outputTokens: 4 },
      finishReason: "stop",
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((d) => d.type === "text")).toBe(true);
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(
      "Hello there, friend!",
    );
    expect(fake.requests[0]?.path).toBe("/v1/chat/completions");
    expect(fake.requests[0]?.headers.authorization).toBe(route.authorization);
    const body = fake.requests[0]?.body;
    expect(body).toMatchObject({ model: route.model, stream: true });
    expect(body?.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "Hi" },
    ]);
  });

  it("returns two tool calls with their raw argument text when the arguments arrive in fragments", async () => {
    const first = '{"city":  "Oslo", "days": 3}';
    const second = '{"city":"Lima"}';
    const fake = await serve([
      {
        type: "completion",
        toolCalls: [
          {
            id: "call_a",
            name: "weather",
            arguments: first,
            fragments: ['{"ci', 'ty":  "Os', 'lo", "days": 3}'],
          },
          { id: "call_b", name: "weather", arguments: second },
        ],
      },
    ]);
    const adapter = adapterFor(fake);
    const tools = [{ name: "weather", description: "Forecast", parameters: WEATHER_SCHEMA }];
    const { response, deltas } = await collect(adapter, request({ tools }));

    expect(response.toolCalls).toEqual([
      { id: "call_a", name: "weather", arguments: first },
      { id: "call_b", name: "weather", arguments: second },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 5 });

    const callDeltas = deltas.filter((d) => d.type === "tool_call");
    expect(callDeltas[0]).toEqual({
      type: "tool_call",
      index: 0,
      id: "call_a",
      name: "weather",
      argumentsDelta: "",
    });
    expect(callDeltas.filter((d) => d.index === 0).length).toBeGreaterThanOrEqual(4);
    expect(callDeltas.map((d) => d.index)).toEqual([...callDeltas.map((d) => d.index)].sort());
    for (const [index, text] of [first, second].entries()) {
      const joined = callDeltas
        .filter((d) => d.index === index)
        .map((d) => d.argumentsDelta)
        .join("");
      expect(joined).toBe(text);
    }
  });

  it("sends our tools as JSON Schema, the tool choice, and tool results as tool messages", async () => {
    const fake = await serve([{ type: "completion", text: "Both are mild." }]);
    await adapterFor(fake).generate(
      request({
        messages: [
          { role: "user", content: "Weather in Oslo and Lima?" },
          {
            role: "assistant",
            content: "Checking.",
            toolCalls: [
              { id: "call_a", name: "weather", arguments: '{"city":"Oslo"}' },
              { id: "call_b", name: "weather", arguments: '{"city":"Lima"}' },
            ],
          },
          { role: "tool", toolCallId: "call_a", toolName: "weather", content: "Oslo: 4C" },
          { role: "tool", toolCallId: "call_b", toolName: "weather", content: "Lima: 19C" },
        ],
        tools: [{ name: "weather", description: "Forecast", parameters: WEATHER_SCHEMA }],
        toolChoice: "required",
        maxOutputTokens: 256,
      }),
    );

    const body = fake.requests[0]?.body ?? {};
    expect(body.tools).toEqual([
      expect.objectContaining({
        type: "function",
        function: expect.objectContaining({
          name: "weather",
          description: "Forecast",
          parameters: expect.objectContaining(WEATHER_SCHEMA),
        }),
      }),
    ]);
    expect(body.tool_choice).toBe("required");
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(256);
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "Weather in Oslo and Lima?" },
      expect.objectContaining({
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "weather", arguments: '{"city":"Oslo"}' },
          },
          {
            id: "call_b",
            type: "function",
            function: { name: "weather", arguments: '{"city":"Lima"}' },
          },
        ],
      }),
      { role: "tool", tool_call_id: "call_a", content: "Oslo: 4C" },
      { role: "tool", tool_call_id: "call_b", content: "Lima: 19C" },
    ]);
  });

  it("resolves with the whole response when no onDelta is given", async () => {
    const fake = await serve([{ type: "completion", text: "Quiet reply." }]);
    const response = await adapterFor(fake).generate(request());
    expect(response.text).toBe("Quiet reply.");
  });

  it("maps a 429 with retry-after to a retryable rate_limit error carrying the wait", async () => {
    const fake = await serve([
      { type: "error", status: 429, message: "slow down", headers: { "retry-after": "2" } },
    ]);
    const error = await failure(adapterFor(fake));
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 2000 });
  });

  it("prefers retry-after-ms over retry-after", async () => {
    const fake = await serve([
      {
        type: "error",
        status: 429,
        headers: { "retry-after-ms": "1500", "retry-after": "9" },
      },
    ]);
    expect((await failure(adapterFor(fake))).retryAfterMs).toBe(1500);
  });

  it("maps a 500 to a retryable server error", async () => {
    const fake = await serve([{ type: "error", status: 500, message: "boom" }]);
    expect(await failure(adapterFor(fake))).toMatchObject({ kind: "server", retryable: true });
  });

  it("maps a 503 to a retryable overloaded error", async () => {
    const fake = await serve([{ type: "error", status: 503 }]);
    expect(await failure(adapterFor(fake))).toMatchObject({ kind: "overloaded", retryable: true });
  });

  it("maps a 401 to a terminal auth error", async () => {
    const fake = await serve([{ type: "error", status: 401, message: "bad key" }]);
    expect(await failure(adapterFor(fake))).toMatchObject({ kind: "auth", retryable: false });
  });

  it("maps a 400 about the context length to context_overflow", async () => {
    const fake = await serve([
      {
        type: "error",
        status: 400,
        code: "context_length_exceeded",
        message: "This model's maximum context length is 8192 tokens.",
      },
    ]);
    expect(await failure(adapterFor(fake))).toMatchObject({
      kind: "context_overflow",
      retryable: false,
    });
  });

  it("maps any other 400 to a terminal bad_request error", async () => {
    const fake = await serve([{ type: "error", status: 400, message: "bad field 'x'" }]);
    expect(await failure(adapterFor(fake))).toMatchObject({ kind: "bad_request" });
  });
});

describe("the AI SDK adapter beyond the wire format", () => {
  it("streams reasoning before text from an OpenAI-compatible server", async () => {
    const fake = await serve([{ type: "completion", reasoning: "Think first.", text: "Done." }]);
    const adapter = createAiSdkAdapter(
      "openai-compatible/r1",
      {},
      {
        env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
      },
    );
    const { response, deltas } = await collect(adapter, request());
    expect(response.reasoning).toBe("Think first.");
    expect(response.text).toBe("Done.");
    const firstText = deltas.findIndex((d) => d.type === "text");
    expect(deltas.slice(0, firstText).every((d) => d.type === "reasoning")).toBe(true);
  });

  it("resolves with the text when the model ignores a required tool choice", async () => {
    const fake = await serve([
      { type: "completion", text: "Just text.", usage: { promptTokens: 7, completionTokens: 2 } },
    ]);
    const adapter = createAiSdkAdapter(
      "openai-compatible/small",
      {},
      {
        env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
      },
    );
    const tools = [{ name: "weather", description: "Forecast", parameters: WEATHER_SCHEMA }];
    const response = await adapter.generate(request({ tools, toolChoice: "required" }));
    expect(response).toEqual({
      text: "Just text.",
      reasoning: "",
      toolCalls: [],
      usage: { inputTokens: 7, outputTokens: 2 },
      finishReason: "stop",
    });
  });

  it("reaches Ollama through the /v1 endpoint under OLLAMA_BASE_URL", async () => {
    const fake = await serve([{ type: "completion", text: "From llama." }]);
    const root = fake.baseUrl.replace(/\/v1$/, "");
    const adapter = createAiSdkAdapter("ollama/llama3.2", {}, { env: { OLLAMA_BASE_URL: root } });
    expect((await adapter.generate(request())).text).toBe("From llama.");
    expect(fake.requests[0]?.body.model).toBe("llama3.2");
  });

  it("maps a refused connection to a retryable network error", async () => {
    const fake = await startFakeOpenAiServer([]);
    await fake.close();
    const adapter = createAiSdkAdapter(
      "openai-compatible/x",
      {},
      {
        env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
      },
    );
    expect(await failure(adapter)).toMatchObject({ kind: "network", retryable: true });
  });

  it("rejects with the caller's own reason when the caller aborts", async () => {
    const fake = await serve([{ type: "completion", text: "never read" }]);
    const adapter = createAiSdkAdapter(
      "openai-compatible/x",
      {},
      {
        env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
      },
    );
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    await expect(adapter.generate(request({ signal: controller.signal }))).rejects.toBe(reason);
  });

  it("maps a call that outlives timeoutMs to a retryable timeout error", async () => {
    const fake = await serve([{ type: "completion", text: "too late", stallMs: 5_000 }]);
    const adapter = createAiSdkAdapter(
      "openai-compatible/x",
      {},
      { env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl }, timeoutMs: 50 },
    );
    expect(await failure(adapter)).toMatchObject({ kind: "timeout", retryable: true });
  });

  it("is retried by withRetries after a 429 and then succeeds, waiting as asked", async () => {
    const fake = await serve([
      { type: "error", status: 429, headers: { "retry-after": "3" } },
      { type: "completion", text: "Second time lucky." },
    ]);
    const sleeps: number[] = [];
    let nowMs = 0;
    const clock: Clock = {
      now: () => nowMs,
      sleep: async (ms) => {
        sleeps.push(ms);
        nowMs += ms;
      },
    };
    const adapter = withRetries(
      createAiSdkAdapter(
        "openai-compatible/x",
        {},
        {
          env: { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
        },
      ),
      {
        maxAttempts: 3,
        baseDelayMs: 100,
        maxDelayMs: 1_000,
        deadlineMs: 60_000,
        clock,
        random: seededRandom(1),
      },
    );
    const response = await adapter.generate(request());
    expect(response.text).toBe("Second time lucky.");
    expect(sleeps).toEqual([3000]);
    expect(fake.requests).toHaveLength(2);
  });

  it("refuses to build an adapter whose provider key is missing", () => {
    expect(() => createAiSdkAdapter("anthropic/claude-sonnet-4-5", {}, { env: {} })).toThrow(
      /ANTHROPIC_API_KEY/,
    );
  });

  it("knows the context window of known models and defaults for local ones", () => {
    const env = { OPENAI_API_KEY: "k", OPENAI_COMPATIBLE_BASE_URL: "http://h/v1" };
    expect(createAiSdkAdapter("openai/gpt-4o-mini", {}, { env }).contextWindow).toBe(128_000);
    expect(createAiSdkAdapter("ollama/llama3.2", {}, { env }).contextWindow).toBe(32_768);
    expect(
      createAiSdkAdapter("ollama/llama3.2", {}, { env, contextWindow: 131_072 }).contextWindow,
    ).toBe(131_072);
  });
});

describe("the fake OpenAI server", () => {
  it("answers a non-streamed request with a chat.completion holding the tool calls", async () => {
    const fake = await serve([
      {
        type: "completion",
        text: "Calling.",
        toolCalls: [{ id: "call_1", name: "echo", arguments: '{"x":1}' }],
      },
    ]);
    const res = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [], stream: false }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            content: "Calling.",
            tool_calls: [{ id: "call_1", function: { name: "echo", arguments: '{"x":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    });
  });
});
