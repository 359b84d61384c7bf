import type { Clock } from "../core/clock.js";
import { assert } from "../core/errors.js";
import type { Random } from "../core/random.js";
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from "./model.js";
import { ModelError } from "./model-error.js";

/** How `withRetries` retries; the numbers without the injected clock and randomness. */
export interface RetryPolicy {
  /** Attempts in all, the first one included: 1 means never retry. */
  maxAttempts: number;
  /** The wait before the first retry; it doubles each retry, before jitter. */
  baseDelayMs: number;
  /** The longest backoff wait (a provider's `retry-after` may still ask for longer). */
  maxDelayMs: number;
  /**
   * The budget of one `generate` call, attempts and waits included, counted from its start.
   * A wait that would end past it is not started: the last error is thrown instead.
   */
  deadlineMs: number;
}

/** Options of `withRetries`: the policy plus the clock that waits and the jitter source. */
export interface RetryOptions extends RetryPolicy {
  clock: Clock;
  random: Random;
}

/** A sensible default: four attempts within two minutes, waits from one second up to 30. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  deadlineMs: 120_000,
};

/**
 * How long to wait before retry number `retry` (from 1): exponential backoff with "equal
 * jitter" (half fixed, half random, so waits spread out yet never collapse to zero), and never
 * less than what the provider asked for with `retry-after`.
 */
export function retryDelayMs(retry: number, error: ModelError, options: RetryOptions): number {
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const jittered = Math.round(backoff / 2 + (options.random.next() * backoff) / 2);
  return Math.max(jittered, error.retryAfterMs ?? 0);
}

/**
 * Wraps an adapter so that retryable `ModelError`s (timeouts, rate limits, overload, server and
 * network failures) are retried with backoff. Terminal errors, and anything that is not a
 * `ModelError` (a cancellation, a bug), are thrown at once. All waiting goes through
 * `options.clock.sleep`, so a simulation decides how time passes.
 *
 * Once an attempt has streamed any delta to `onDelta`, its failure is not retried: the caller
 * has already shown that partial output, and a second attempt would stream a different answer
 * after it. The error is thrown so the caller can decide (it may retry the whole step).
 */
export function withRetries(adapter: ModelAdapter, options: RetryOptions): ModelAdapter {
  assert(options.maxAttempts >= 1, "withRetries needs maxAttempts >= 1");
  assert(options.baseDelayMs >= 0 && options.maxDelayMs >= 0, "retry delays must be >= 0");
  return {
    handle: adapter.handle,
    contextWindow: adapter.contextWindow,
    generate: (request, onDelta) => generateWithRetries(adapter, options, request, onDelta),
  };
}

async function generateWithRetries(
  adapter: ModelAdapter,
  options: RetryOptions,
  request: ModelRequest,
  onDelta: ((delta: ModelDelta) => void) | undefined,
): Promise<ModelResponse> {
  const deadlineAtMs = options.clock.now() + options.deadlineMs;
  for (let attempt = 1; ; attempt++) {
    const attemptState = { streamed: false };
    const forward =
      onDelta &&
      ((delta: ModelDelta) => {
        attemptState.streamed = true;
        onDelta(delta);
      });
    try {
      return await adapter.generate(request, forward);
    } catch (error) {
      const retryable =
        error instanceof ModelError &&
        error.retryable &&
        !attemptState.streamed &&
        attempt < options.maxAttempts &&
        !request.signal?.aborted;
      if (!retryable) throw error;
      const waitMs = retryDelayMs(attempt, error, options);
      if (options.clock.now() + waitMs > deadlineAtMs) throw error;
      await options.clock.sleep(waitMs, request.signal);
    }
  }
}
