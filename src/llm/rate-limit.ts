import type { Clock } from "../core/clock.js";
import type { ProviderName } from "./handle.js";
import type { ModelAdapter, ModelRequest } from "./model.js";
import { ModelError } from "./model-error.js";
import type { ProviderSettings } from "./provider-settings.js";
import { RateLimiter } from "./rate-limiter.js";

/**
 * Makes every call of `adapter` take a turn from `limiter` first, keyed by the calling agent
 * (`request.caller`). The response says how long it queued (`queueWaitMs`); a 429 tells the
 * limiter, which shrinks the limit and honours `retry-after` for every caller of the provider.
 * Sits inside the retries, so each attempt queues again and a retry's backoff holds no slot.
 */
export function withRateLimit(adapter: ModelAdapter, limiter: RateLimiter): ModelAdapter {
  return {
    handle: adapter.handle,
    contextWindow: adapter.contextWindow,
    generate: async (request, onDelta) => {
      const key = request.caller ?? "";
      const grant = await limiter.acquire(key, estimateTokens(request), request.signal);
      try {
        const response = await adapter.generate(request, onDelta);
        grant.release({ tokens: response.usage.inputTokens + response.usage.outputTokens });
        return { ...response, queueWaitMs: grant.waitedMs };
      } catch (error) {
        const rateLimited = error instanceof ModelError && error.kind === "rate_limit";
        grant.release(
          rateLimited
            ? {
                rateLimited:
                  error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs },
              }
            : {},
        );
        throw error;
      }
    },
  };
}

/**
 * A call's tokens before it is made, for the per-minute budget: about four characters a token
 * over the prompt, plus the output it may produce (providers count `max_tokens` the same way).
 */
export function estimateTokens(request: ModelRequest): number {
  let chars = request.system.length;
  for (const message of request.messages) chars += message.content.length;
  for (const tool of request.tools) {
    chars += tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length;
  }
  return Math.ceil(chars / 4) + (request.maxOutputTokens ?? 0);
}

/** Which limiter a provider shares: OpenAI's Responses API counts against OpenAI's limits. */
function limiterKey(provider: ProviderName): keyof ProviderSettings | undefined {
  if (provider === "sim") return undefined;
  return provider === "openai-responses" ? "openai" : provider;
}

/**
 * One limiter per provider for a whole server, made on first use from `providers.NAME.limits`
 * (unlimited where none are set, yet still adapting to 429s). `sim` has none.
 */
export function providerLimiters(
  settings: ProviderSettings,
  clock: Clock,
): (provider: ProviderName) => RateLimiter | undefined {
  const limiters = new Map<string, RateLimiter>();
  return (provider) => {
    const key = limiterKey(provider);
    if (key === undefined) return undefined;
    let limiter = limiters.get(key);
    if (!limiter) {
      limiter = new RateLimiter(settings[key]?.limits ?? {}, clock);
      limiters.set(key, limiter);
    }
    return limiter;
  };
}
