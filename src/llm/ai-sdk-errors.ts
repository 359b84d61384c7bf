import {
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  MessageConversionError,
  NoContentGeneratedError,
  NoOutputGeneratedError,
  RetryError,
  StreamProviderError,
  ToolChoiceViolationError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from "ai";
import { ModelError, type ModelErrorKind } from "./model-error.js";

/**
 * Providers word "the prompt does not fit" differently: OpenAI `context_length_exceeded`,
 * Anthropic "prompt is too long", Gemini "input token count … exceeds the maximum", llama.cpp
 * and vLLM "context window"/"maximum context length". A 400 saying any of these is not fixable
 * by retrying, but the loop can fix it by compacting history, so it gets its own kind.
 */
const CONTEXT_OVERFLOW =
  /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|input is too long|token count.*exceeds|exceeds the max\w* (number of )?tokens/i;

/** Network failures that mean the request may not have reached the server, or timed out. */
const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
]);

/**
 * Reads how long a provider asked us to wait: `retry-after-ms` (OpenAI, milliseconds) first,
 * then `retry-after` as seconds or an HTTP date. Undefined when neither is present or valid.
 */
export function parseRetryAfterMs(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  nowMs: number,
): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number.parseFloat(lower.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = lower.get("retry-after")?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number.parseFloat(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Google's APIs ask a client to wait in the error body, not a header: a
 * `google.rpc.RetryInfo` detail whose `retryDelay` is a protobuf duration (`"27s"`, `"0.5s"`).
 */
export function parseGoogleRetryDelayMs(body: string | undefined): number | undefined {
  if (!body?.includes("RetryInfo")) return undefined;
  try {
    const details = (JSON.parse(body) as { error?: { details?: unknown } }).error?.details;
    if (!Array.isArray(details)) return undefined;
    for (const detail of details as { "@type"?: unknown; retryDelay?: unknown }[]) {
      const delay = typeof detail?.retryDelay === "string" ? detail.retryDelay : "";
      const seconds = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())?.[1];
      if (String(detail?.["@type"]).endsWith("google.rpc.RetryInfo") && seconds !== undefined) {
        return Math.ceil(Number.parseFloat(seconds) * 1000);
      }
    }
  } catch {
    // A body that is not JSON says nothing about waiting.
  }
  return undefined;
}

/** Maps an HTTP status (or its in-stream equivalent) to our kind. */
export function kindForStatus(status: number, text: string): ModelErrorKind {
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limit";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 500) return "server";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if ((status === 400 || status === 413 || status === 422) && CONTEXT_OVERFLOW.test(text)) {
    return "context_overflow";
  }
  if (status >= 400) return "bad_request";
  return "server";
}

/** Classifies an in-stream provider error that carries no status, by its type/code words. */
function kindForStreamError(words: string): ModelErrorKind {
  if (/overload/i.test(words)) return "overloaded";
  if (/rate[ _-]?limit|too many requests/i.test(words)) return "rate_limit";
  if (CONTEXT_OVERFLOW.test(words)) return "context_overflow";
  if (/auth|permission|api[ _-]?key/i.test(words)) return "auth";
  if (/invalid[ _-]?request/i.test(words)) return "bad_request";
  return "server";
}

/** The first network error code found along an error's `cause` chain. */
function networkCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (TIMEOUT_CODES.has(code) || NETWORK_CODES.has(code))) {
      return code;
    }
    current = current.cause;
  }
  return undefined;
}

/** The SDK refused our request before sending it: it will refuse it again. */
function isBadRequest(error: unknown): boolean {
  return (
    InvalidPromptError.isInstance(error) ||
    InvalidArgumentError.isInstance(error) ||
    MessageConversionError.isInstance(error) ||
    UnsupportedFunctionalityError.isInstance(error)
  );
}

/** A response that arrived but could not be used: bad JSON, wrong shape, nothing in it. */
function isInvalidResponse(error: unknown): boolean {
  return (
    InvalidResponseDataError.isInstance(error) ||
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error) ||
    NoOutputGeneratedError.isInstance(error) ||
    // `toolChoice: "required"` answered without a tool call.
    ToolChoiceViolationError.isInstance(error)
  );
}

/**
 * Turns whatever the AI SDK or a provider threw into a `ModelError`, so the loop and the retry
 * policy branch on one kind. `nowMs` resolves a `retry-after` HTTP date.
 */
export function toModelError(error: unknown, nowMs: number): ModelError {
  if (error instanceof ModelError) return error;
  const message = messageOf(error);
  const make = (kind: ModelErrorKind, retryAfterMs?: number) =>
    new ModelError(kind, message, retryAfterMs, { cause: error });

  if (RetryError.isInstance(error)) return toModelError(error.lastError, nowMs);
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) {
      const code = networkCode(error);
      return make(code && TIMEOUT_CODES.has(code) ? "timeout" : "network");
    }
    const kind = kindForStatus(error.statusCode, `${message} ${error.responseBody ?? ""}`);
    const retryAfterMs =
      parseRetryAfterMs(error.responseHeaders, nowMs) ??
      parseGoogleRetryDelayMs(error.responseBody);
    return make(kind, retryAfterMs);
  }
  if (StreamProviderError.isInstance(error)) {
    const words = `${error.type ?? ""} ${error.code ?? ""} ${message}`;
    return make(
      error.statusCode === undefined
        ? kindForStreamError(words)
        : kindForStatus(error.statusCode, words),
    );
  }
  if (LoadAPIKeyError.isInstance(error)) return make("auth");
  if (isBadRequest(error)) return make("bad_request");
  if (isInvalidResponse(error)) return make("invalid_response");
  if (error instanceof Error && error.name === "TimeoutError") return make("timeout");
  const code = networkCode(error);
  if (code) return make(TIMEOUT_CODES.has(code) ? "timeout" : "network");
  if (!(error instanceof Error) && typeof error === "object" && error !== null) {
    // Some providers put the wire error object itself into the stream (`{ type, message }`).
    return make(kindForStreamError(describe(error)));
  }
  // Anything else is unexpected; calling it terminal avoids retrying a bug in a loop.
  return make("invalid_response");
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const inner = (error as { message?: unknown } | null)?.message;
  return typeof inner === "string" ? inner : describe(error);
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
