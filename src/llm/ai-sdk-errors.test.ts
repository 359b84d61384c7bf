import { APICallError, RetryError, StreamProviderError, ToolChoiceViolationError } from "ai";
import { describe, expect, it } from "vitest";
import {
  kindForStatus,
  parseGoogleRetryDelayMs,
  parseRetryAfterMs,
  toModelError,
} from "./ai-sdk-errors.js";
import { ModelError } from "./model-error.js";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

function apiError(
  statusCode: number | undefined,
  extra: Partial<{
    cause: unknown;
    responseBody: string;
    responseHeaders: Record<string, string>;
  }> = {},
) {
  return new APICallError({
    message: statusCode ? `HTTP ${statusCode}` : "Cannot connect to API",
    url: "http://h/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    ...extra,
  });
}

describe("parseRetryAfterMs", () => {
  it("reads retry-after-ms, retry-after seconds, and retry-after dates", () => {
    expect(parseRetryAfterMs({ "retry-after-ms": "250.4" }, NOW)).toBe(251);
    expect(parseRetryAfterMs({ "retry-after": "3" }, NOW)).toBe(3_000);
    expect(parseRetryAfterMs({ "Retry-After": "1.5" }, NOW)).toBe(1_500);
    const inTenSeconds = new Date(NOW + 10_000).toUTCString();
    expect(parseRetryAfterMs({ "retry-after": inTenSeconds }, NOW)).toBe(10_000);
  });

  it("is undefined without a usable header, and never negative", () => {
    expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfterMs({ "retry-after": "soon" }, NOW)).toBeUndefined();
    const past = new Date(NOW - 5_000).toUTCString();
    expect(parseRetryAfterMs({ "retry-after": past }, NOW)).toBe(0);
  });
});

describe("kindForStatus", () => {
  it("maps HTTP statuses to model error kinds", () => {
    expect(kindForStatus(408, "")).toBe("timeout");
    expect(kindForStatus(429, "")).toBe("rate_limit");
    expect(kindForStatus(503, "")).toBe("overloaded");
    expect(kindForStatus(529, "")).toBe("overloaded");
    expect(kindForStatus(502, "")).toBe("server");
    expect(kindForStatus(401, "")).toBe("auth");
    expect(kindForStatus(403, "")).toBe("auth");
    expect(kindForStatus(404, "")).toBe("not_found");
    expect(kindForStatus(422, "")).toBe("bad_request");
    expect(kindForStatus(409, "")).toBe("bad_request");
  });

  it("recognises each provider's wording for a prompt that does not fit", () => {
    for (const text of [
      "context_length_exceeded",
      "This model's maximum context length is 8192 tokens",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)",
      "the request exceeds the available context window",
    ]) {
      expect(kindForStatus(400, text), text).toBe("context_overflow");
    }
  });
});

describe("toModelError", () => {
  it("maps an API error by status and keeps retry-after", () => {
    const error = toModelError(apiError(429, { responseHeaders: { "retry-after": "7" } }), NOW);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 7_000 });
  });

  it("finds context-length wording in the response body", () => {
    const body = '{"error":{"code":"context_length_exceeded"}}';
    expect(toModelError(apiError(400, { responseBody: body }), NOW).kind).toBe("context_overflow");
  });

  it("maps connection failures to network and socket timeouts to timeout", () => {
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(toModelError(apiError(undefined, { cause: reset }), NOW)).toMatchObject({
      kind: "network",
      retryable: true,
    });
    const slow = Object.assign(new Error("connect timeout"), { code: "UND_ERR_CONNECT_TIMEOUT" });
    expect(toModelError(apiError(undefined, { cause: slow }), NOW).kind).toBe("timeout");
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
    });
    expect(toModelError(refused, NOW).kind).toBe("network");
  });

  it("maps a TimeoutError abort reason to timeout", () => {
    expect(toModelError(new DOMException("Step timeout", "TimeoutError"), NOW).kind).toBe(
      "timeout",
    );
  });

  it("maps in-stream provider errors by status, else by their type", () => {
    const overloaded = new StreamProviderError({ message: "Overloaded", type: "overloaded_error" });
    expect(toModelError(overloaded, NOW).kind).toBe("overloaded");
    const limited = new StreamProviderError({ message: "slow down", statusCode: 429 });
    expect(toModelError(limited, NOW).kind).toBe("rate_limit");
    expect(toModelError({ type: "rate_limit_error", message: "x" }, NOW).kind).toBe("rate_limit");
  });

  it("unwraps the SDK's RetryError to its last error", () => {
    const wrapped = new RetryError({
      message: "failed",
      reason: "maxRetriesExceeded",
      errors: [apiError(500), apiError(401)],
    });
    expect(toModelError(wrapped, NOW).kind).toBe("auth");
  });

  it("maps an unusable response to a terminal invalid_response", () => {
    const violation = new ToolChoiceViolationError({
      toolChoice: { type: "required" },
      finishReason: "stop",
      provider: "p",
      modelId: "m",
      content: [],
    });
    expect(toModelError(violation, NOW)).toMatchObject({
      kind: "invalid_response",
      retryable: false,
    });
  });

  it("keeps the original error as the cause and passes a ModelError through", () => {
    const original = apiError(500);
    expect(toModelError(original, NOW).cause).toBe(original);
    const already = new ModelError("auth", "no");
    expect(toModelError(already, NOW)).toBe(already);
  });
});

describe("parseGoogleRetryDelayMs", () => {
  const body = (retryDelay: unknown) =>
    JSON.stringify({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }],
      },
    });

  it("reads a RetryInfo detail's duration, whole or fractional seconds", () => {
    expect(parseGoogleRetryDelayMs(body("27s"))).toBe(27_000);
    expect(parseGoogleRetryDelayMs(body("0.25s"))).toBe(250);
  });

  it("is undefined without a RetryInfo, with a malformed duration, or for a body that is not JSON", () => {
    expect(parseGoogleRetryDelayMs(undefined)).toBeUndefined();
    expect(parseGoogleRetryDelayMs(body("soon"))).toBeUndefined();
    expect(parseGoogleRetryDelayMs('{"error":{"message":"x"}}')).toBeUndefined();
    expect(parseGoogleRetryDelayMs("RetryInfo but not json")).toBeUndefined();
  });

  it("gives a Gemini 429 its wait when no header says one", () => {
    const error = toModelError(apiError(429, { responseBody: body("3s") }), NOW);
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 3_000 });
  });
});
