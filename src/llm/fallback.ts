import { assert } from "../core/errors.js";
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from "./model.js";
import { ModelError, type ModelErrorKind } from "./model-error.js";

/**
 * The failures that move a call on to the next handle: the provider is down, overloaded, slow
 * or out of capacity, after the handle's own retries. Never a failure the request caused
 * (`bad_request`, `context_overflow`, `refused`), nor one of our setup (`auth`, `not_found`):
 * another provider would fail the same way, or answer a request we got wrong.
 */
const OUTAGE: ReadonlySet<ModelErrorKind> = new Set([
  "server",
  "overloaded",
  "timeout",
  "network",
  "rate_limit",
]);

/** True if `error` is an outage-class failure, on which the next fallback handle is tried. */
export function isOutage(error: unknown): error is ModelError {
  return error instanceof ModelError && OUTAGE.has(error.kind);
}

/**
 * Serves one handle with fallbacks: each call goes to the first adapter; on an outage-class
 * failure (after that adapter's own retries) it goes to the next, in order. The response says
 * which handle answered (`model`) and which failed before it (`fallbacks`). When every handle
 * fails, the error names each handle's failure.
 *
 * A call that has already streamed output is never moved on: the caller has shown that partial
 * answer, and another model would continue it with a different one.
 *
 * @example withFallbacks([modelFor("anthropic/claude-sonnet-4-5"), modelFor("openai/gpt-4.1")])
 */
export function withFallbacks(adapters: readonly ModelAdapter[]): ModelAdapter {
  const [primary] = adapters;
  assert(primary !== undefined, "withFallbacks needs at least one adapter");
  if (adapters.length === 1) return primary;
  return {
    handle: primary.handle,
    // The request is built once for the primary; a fallback with a smaller window still gets
    // it, and answers `context_overflow` if it cannot hold it.
    contextWindow: primary.contextWindow,
    generate: (request, onDelta) => generateWithFallbacks(adapters, request, onDelta),
  };
}

async function generateWithFallbacks(
  adapters: readonly ModelAdapter[],
  request: ModelRequest,
  onDelta: ((delta: ModelDelta) => void) | undefined,
): Promise<ModelResponse> {
  const failures: { handle: string; error: ModelError }[] = [];
  for (const adapter of adapters) {
    const attempt = { streamed: false };
    const forward =
      onDelta &&
      ((delta: ModelDelta) => {
        attempt.streamed = true;
        onDelta(delta);
      });
    try {
      const response = await adapter.generate(request, forward);
      return {
        ...response,
        model: response.model ?? adapter.handle,
        fallbacks: failures.map(({ handle, error }) => ({
          handle,
          kind: error.kind,
          message: error.message,
        })),
      };
    } catch (error) {
      if (!isOutage(error) || attempt.streamed || request.signal?.aborted) {
        throw failures.length === 0 || !(error instanceof ModelError)
          ? error
          : allFailed([...failures, { handle: adapter.handle, error }], error);
      }
      failures.push({ handle: adapter.handle, error });
    }
  }
  const last = failures.at(-1);
  assert(last !== undefined, "a fallback chain ends with a failure");
  throw allFailed(failures, last.error);
}

/** One error naming each handle's failure; its kind (and retry hint) is the last one's. */
function allFailed(
  failures: readonly { handle: string; error: ModelError }[],
  last: ModelError,
): ModelError {
  const each = failures.map(({ handle, error }) => `${handle}: ${error.message}`).join("; ");
  return new ModelError(last.kind, `every model failed (${each})`, last.retryAfterMs, {
    cause: last,
  });
}
