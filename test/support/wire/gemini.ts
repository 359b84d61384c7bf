import {
  type ScriptedCompletion,
  type SseFrame,
  split,
  tokensOf,
  type WireFormat,
} from "../fake-provider-server.js";

const STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function errorBody(code: number, message: string, details?: unknown[]) {
  return {
    error: { code, message, status: STATUSES[code] ?? "UNKNOWN", ...(details && { details }) },
  };
}

/** Gemini counts cached tokens within `promptTokenCount`, as `cachedContentTokenCount`. */
function usageMetadata(reply: ScriptedCompletion) {
  const { input, output, cached } = tokensOf(reply);
  return {
    promptTokenCount: input,
    candidatesTokenCount: output,
    totalTokenCount: input + output,
    ...(cached > 0 && { cachedContentTokenCount: cached }),
  };
}

/** A `GenerateContentResponse` holding `parts`, finished or not. */
function response(parts: unknown[], finishReason?: string, usage?: unknown) {
  const candidate = {
    ...(parts.length > 0 && { content: { parts, role: "model" } }),
    ...(finishReason && { finishReason }),
    index: 0,
    ...(finishReason === "SAFETY" && {
      safetyRatings: [
        { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
      ],
    }),
  };
  return {
    candidates: [candidate],
    ...(usage !== undefined && { usageMetadata: usage }),
    modelVersion: "gemini-fake",
    responseId: "resp-fake",
  };
}

function finishReason(reply: ScriptedCompletion): string {
  // Gemini has no finish reason for tool calls: a turn that calls functions ends with STOP.
  return reply.finishReason ?? (reply.refusal !== undefined ? "SAFETY" : "STOP");
}

/** Function calls arrive whole (Gemini does not stream their arguments), several per chunk. */
function callParts(reply: ScriptedCompletion) {
  return (reply.toolCalls ?? []).map((call) => ({
    functionCall: { name: call.name, args: JSON.parse(call.arguments) },
  }));
}

/**
 * Google Gemini (`POST /v1beta/models/{model}:generateContent`, and `:streamGenerateContent`
 * with `alt=sse`), as in https://ai.google.dev/api/generate-content: each SSE event is a whole
 * `GenerateContentResponse`; thoughts are parts with `thought: true`; a blocked answer ends
 * with `finishReason: SAFETY`; errors are Google RPC statuses, and a 429 says how long to wait
 * in a `RetryInfo` detail rather than a header.
 */
export const geminiWire: WireFormat = {
  name: "Google Gemini",
  basePath: "/v1beta",
  route: (path, query) => {
    const match = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(path);
    if (!match) return undefined;
    return { stream: match[1] === "streamGenerateContent" && query.get("alt") === "sse" };
  },
  error: (status, message) => errorBody(status, message),
  json: (reply) => {
    const parts = [
      ...(reply.reasoning ? [{ text: reply.reasoning, thought: true }] : []),
      ...(reply.text ? [{ text: reply.text }] : []),
      ...callParts(reply),
    ];
    return response(parts, finishReason(reply), usageMetadata(reply));
  },
  stream: (reply) => {
    const frames: SseFrame[] = [];
    for (const piece of split(reply.reasoning ?? "", 6)) {
      frames.push({ data: response([{ text: piece, thought: true }]) });
    }
    for (const piece of split(reply.text ?? "", 6))
      frames.push({ data: response([{ text: piece }]) });
    const calls = callParts(reply);
    frames.push({ data: response(calls, finishReason(reply), usageMetadata(reply)) });
    return frames;
  },
  failure: (failure) => {
    switch (failure.kind) {
      case "rate_limit": {
        const seconds = failure.retryAfterS ?? 1;
        return {
          status: 429,
          body: errorBody(
            429,
            `You exceeded your current quota, please check your plan and billing details. Please retry in ${seconds}.2s.`,
            [
              {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                violations: [
                  {
                    quotaMetric:
                      "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                  },
                ],
              },
              { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` },
            ],
          ),
        };
      }
      case "server":
        return {
          status: 500,
          body: errorBody(
            500,
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
          ),
        };
      case "overloaded":
        return {
          status: 503,
          body: errorBody(503, "The model is overloaded. Please try again later."),
        };
      case "context_too_long":
        return {
          status: 400,
          body: errorBody(
            400,
            "The input token count (1200345) exceeds the maximum number of tokens allowed (1048576).",
          ),
        };
    }
  },
};
