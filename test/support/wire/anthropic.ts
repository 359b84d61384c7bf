import {
  fragmentsOf,
  type ScriptedCompletion,
  type SseFrame,
  split,
  tokensOf,
  type WireFormat,
} from "../fake-provider-server.js";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function errorBody(type: string, message: string) {
  return { type: "error", error: { type, message }, request_id: "req_fake" };
}

function stopReason(reply: ScriptedCompletion): string {
  if (reply.finishReason) return reply.finishReason;
  if (reply.refusal !== undefined) return "refusal";
  return reply.toolCalls?.length ? "tool_use" : "end_turn";
}

/** The content blocks of a reply, in the order Claude writes them: thinking, text, tool use. */
function blocks(reply: ScriptedCompletion) {
  const out: Record<string, unknown>[] = [];
  if (reply.reasoning) {
    out.push({ type: "thinking", thinking: reply.reasoning, signature: "sig-fake" });
  }
  const text = `${reply.text ?? ""}${reply.refusal ?? ""}`;
  if (text !== "") out.push({ type: "text", text });
  for (const call of reply.toolCalls ?? []) {
    out.push({ type: "tool_use", id: call.id, name: call.name, input: JSON.parse(call.arguments) });
  }
  return out;
}

/** Anthropic counts cache reads and writes apart from `input_tokens`, the uncached rest. */
function inputUsage(reply: ScriptedCompletion) {
  const { input, cached, cacheWrite } = tokensOf(reply);
  return {
    input_tokens: input - cached - cacheWrite,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: cacheWrite,
  };
}

function streamFrames(reply: ScriptedCompletion): SseFrame[] {
  const frames: SseFrame[] = [];
  const send = (data: Record<string, unknown>) => frames.push({ event: data.type as string, data });
  const { output } = tokensOf(reply);
  send({
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: "claude-fake",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: 1 },
    },
  });
  send({ type: "ping" });
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    send({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) send({ type: "content_block_delta", index, delta });
    send({ type: "content_block_stop", index });
    index += 1;
  };
  if (reply.reasoning) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...split(reply.reasoning, 6).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: "sig-fake" },
    ]);
  }
  const text = `${reply.text ?? ""}${reply.refusal ?? ""}`;
  if (text !== "") {
    block(
      { type: "text", text: "" },
      split(text, 6).map((piece) => ({ type: "text_delta", text: piece })),
    );
  }
  for (const call of reply.toolCalls ?? []) {
    block(
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      fragmentsOf(call).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
  }
  send({
    type: "message_delta",
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: output },
  });
  send({ type: "message_stop" });
  return frames;
}

/**
 * Anthropic Messages (`POST /v1/messages`), as in https://docs.claude.com/en/api/messages and
 * its streaming guide: named SSE events, `input_json_delta` fragments for tool input, and
 * errors as `{type: "error", error: {type, message}}`, in a response or as an `error` event.
 */
export const anthropicWire: WireFormat = {
  name: "Anthropic Messages",
  basePath: "/v1",
  route: (path, _query, body) =>
    path === "/v1/messages" ? { stream: body.stream === true } : undefined,
  error: (status, message) => errorBody(ERROR_TYPES[status] ?? "api_error", message),
  json: (reply) => {
    const { output } = tokensOf(reply);
    return {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: "claude-fake",
      content: blocks(reply),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: output },
    };
  },
  stream: streamFrames,
  failure: (failure) => {
    switch (failure.kind) {
      case "rate_limit":
        return {
          status: 429,
          headers: {
            "retry-after": String(failure.retryAfterS ?? 1),
            "anthropic-ratelimit-requests-remaining": "0",
          },
          body: errorBody(
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute.",
          ),
        };
      case "server":
        return { status: 500, body: errorBody("api_error", "Internal server error") };
      case "overloaded": {
        const body = errorBody("overloaded_error", "Overloaded");
        return failure.midStream ? { event: "error", data: body } : { status: 529, body };
      }
      case "context_too_long":
        return {
          status: 400,
          body: errorBody(
            "invalid_request_error",
            "prompt is too long: 215023 tokens > 200000 maximum",
          ),
        };
    }
  },
};
