import {
  fragmentsOf,
  type HttpReply,
  type ScriptedCompletion,
  type ScriptedFailure,
  type SseFrame,
  split,
  tokensOf,
  type WireFormat,
} from "../fake-provider-server.js";

const CREATED = 1_767_225_600;

function finishReason(reply: ScriptedCompletion): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
}

function usage(reply: ScriptedCompletion) {
  const { input, output, cached } = tokensOf(reply);
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    ...(cached > 0 && { prompt_tokens_details: { cached_tokens: cached } }),
  };
}

function errorBody(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
) {
  return { error: { message, type, param, code } };
}

/** How OpenAI reports each failure (https://platform.openai.com/docs/guides/error-codes). */
function openAiFailure(failure: ScriptedFailure): HttpReply | undefined {
  switch (failure.kind) {
    case "rate_limit":
      return {
        status: 429,
        headers: {
          "retry-after": String(failure.retryAfterS ?? 1),
          "x-ratelimit-limit-requests": "3",
          "x-ratelimit-remaining-requests": "0",
        },
        body: errorBody(
          "Rate limit reached for gpt-4.1-mini in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1.",
          "requests",
          "rate_limit_exceeded",
        ),
      };
    case "server":
      return {
        status: 500,
        body: errorBody(
          "The server had an error while processing your request. Sorry about that!",
          "server_error",
          null,
        ),
      };
    case "overloaded":
      return {
        status: 503,
        body: errorBody(
          "The engine is currently overloaded, please try again later.",
          "server_error",
          null,
        ),
      };
    case "context_too_long":
      return {
        status: 400,
        body: errorBody(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
          "invalid_request_error",
          "context_length_exceeded",
          "messages",
        ),
      };
  }
}

/** Options for servers that speak chat completions with their own habits. */
interface ChatDialect {
  name: string;
  /** Sends each tool call whole in one chunk, as Ollama does, instead of in fragments. */
  wholeToolCalls?: boolean;
  systemFingerprint?: string;
  /** The field reasoning travels in: `reasoning_content` (DeepSeek, vLLM) or `reasoning`. */
  reasoningField: "reasoning_content" | "reasoning";
  failure(failure: ScriptedFailure): HttpReply | SseFrame | undefined;
  error(status: number, message: string, code: string | undefined): unknown;
}

function chatWire(dialect: ChatDialect): WireFormat {
  const fingerprint =
    dialect.systemFingerprint === undefined
      ? {}
      : { system_fingerprint: dialect.systemFingerprint };
  return {
    name: dialect.name,
    basePath: "/v1",
    route: (path, _query, body) =>
      path === "/v1/chat/completions" ? { stream: body.stream === true } : undefined,
    error: dialect.error,
    failure: dialect.failure,
    json: (reply) => ({
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: CREATED,
      model: "fake-model",
      ...fingerprint,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text ?? null,
            ...(reply.reasoning !== undefined && { [dialect.reasoningField]: reply.reasoning }),
            ...(reply.refusal !== undefined && { refusal: reply.refusal }),
            ...(reply.toolCalls?.length && {
              tool_calls: reply.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
          },
          finish_reason: finishReason(reply),
        },
      ],
      usage: usage(reply),
    }),
    stream: (reply, request) => {
      const frames: (SseFrame | string)[] = [];
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        frames.push({
          data: {
            id: "chatcmpl-fake",
            object: "chat.completion.chunk",
            created: CREATED,
            model: "fake-model",
            ...fingerprint,
            choices,
            ...extra,
          },
        });
      const delta = (value: Record<string, unknown>) =>
        chunk([{ index: 0, delta: value, finish_reason: null }]);
      delta({ role: "assistant", content: "" });
      for (const piece of split(reply.reasoning ?? "", 6))
        delta({ [dialect.reasoningField]: piece });
      for (const piece of split(reply.text ?? "", 6)) delta({ content: piece });
      for (const piece of split(reply.refusal ?? "", 6)) delta({ refusal: piece });
      for (const [index, call] of (reply.toolCalls ?? []).entries()) {
        const head = { index, id: call.id, type: "function" };
        if (dialect.wholeToolCalls) {
          const fn = { name: call.name, arguments: call.arguments };
          delta({ role: "assistant", content: "", tool_calls: [{ ...head, function: fn }] });
          continue;
        }
        delta({ tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] });
        for (const fragment of fragmentsOf(call)) {
          delta({ tool_calls: [{ index, function: { arguments: fragment } }] });
        }
      }
      chunk([{ index: 0, delta: {}, finish_reason: finishReason(reply) }]);
      const options = request.body.stream_options as { include_usage?: boolean } | undefined;
      if (options?.include_usage === true) chunk([], { usage: usage(reply) });
      frames.push("[DONE]");
      return frames;
    },
  };
}

/** OpenAI chat completions (`POST /v1/chat/completions`). */
export const openAiChatWire: WireFormat = chatWire({
  name: "OpenAI chat completions",
  // OpenAI itself never returns reasoning here; servers speaking its format do, in this field.
  reasoningField: "reasoning_content",
  error: (_status, message, code) => errorBody(message, "fake_error", code ?? null),
  failure: openAiFailure,
});

/**
 * Ollama's OpenAI-compatible endpoint (`POST /v1/chat/completions`): each tool call arrives
 * whole in one chunk, chunks carry `fp_ollama`, a thinking model's thoughts travel in
 * `reasoning`, and errors are `api_error`s. Ollama answers
 * 503 when its queue is full and 500 when the runner dies; it never sends 429, and it
 * truncates an over-long prompt instead of refusing it, so those two failures do not exist.
 */
export const ollamaWire: WireFormat = chatWire({
  name: "Ollama",
  reasoningField: "reasoning",
  wholeToolCalls: true,
  systemFingerprint: "fp_ollama",
  error: (_status, message) => errorBody(message, "api_error", null),
  failure: (failure) => {
    switch (failure.kind) {
      case "server":
        return {
          status: 500,
          body: errorBody("llama runner process has terminated: exit status 2", "api_error", null),
        };
      case "overloaded":
        return {
          status: 503,
          body: errorBody(
            "server busy, please try again.  maximum pending requests exceeded",
            "api_error",
            null,
          ),
        };
      default:
        return undefined;
    }
  },
});
