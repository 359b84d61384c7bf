import { type Clock, systemClock } from "../core/clock.js";
import { ValidationError } from "../core/errors.js";
import { type Random, systemRandom } from "../core/random.js";
import { contextWindowFor } from "./context-windows.js";
import { formatModelHandle, parseModelHandle } from "./handle.js";
import type { ModelAdapter } from "./model.js";
import {
  checkProviderReady,
  hasAnyProviderKey,
  type ProviderSettings,
  resolveProviderEndpoint,
} from "./provider-settings.js";
import { withRateLimit } from "./rate-limit.js";
import type { RateLimiter } from "./rate-limiter.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from "./retry.js";
import { createSimModel } from "./sim/sim-model.js";

export interface CreateModelOptions {
  settings?: ProviderSettings;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  random?: Random;
  retry?: Partial<RetryPolicy>;
  /** The provider's limiter, shared by every model of that provider on the server. */
  limiter?: RateLimiter;
}

/**
 * The adapter for a model handle: `sim/*` is the scripted demo model; every other provider goes
 * through the AI SDK, with retries of transient failures, each attempt queued behind the
 * provider's `limiter` when one is given. Throws a ValidationError for a bad
 * handle or a provider without its key, so the caller can refuse the agent up front.
 */
export function createModel(handle: string, options: CreateModelOptions = {}): ModelAdapter {
  const parsed = parseModelHandle(handle);
  if (parsed.provider === "sim") return createSimModel({ handle, remember: false });
  const clock = options.clock ?? systemClock;
  const settings = options.settings ?? {};
  const env = options.env ?? process.env;
  const problem = checkProviderReady(parsed, settings, env);
  if (problem) throw new ValidationError(problem, [{ path: "model", message: problem }]);
  // The AI SDK and its providers load on the first call: a server on the sim model never
  // pays for them at start-up.
  let loaded: Promise<ModelAdapter> | undefined;
  const load = () =>
    (loaded ??= import("./ai-sdk-adapter.js").then((sdk) =>
      sdk.createAiSdkAdapter(handle, settings, { env, clock }),
    ));
  const adapter: ModelAdapter = {
    handle: formatModelHandle(parsed),
    contextWindow: contextWindowFor(parsed.model),
    generate: async (request, onDelta) => (await load()).generate(request, onDelta),
  };
  const limited = options.limiter ? withRateLimit(adapter, options.limiter) : adapter;
  return withRetries(limited, {
    ...DEFAULT_RETRY_POLICY,
    ...options.retry,
    clock,
    random: options.random ?? systemRandom,
  });
}

/** The model agents get when neither their type nor the config names one. */
export interface DefaultModel {
  handle: string;
  /** Why this one: shown at start-up, loudly when it is `sim`. */
  reason: string;
}

const DEFAULT_BY_PROVIDER = [
  ["openai", "openai/gpt-4.1-mini"],
  ["anthropic", "anthropic/claude-sonnet-4-5"],
  ["google", "google/gemini-2.5-flash"],
] as const;

export function defaultModel(
  env: NodeJS.ProcessEnv,
  settings: ProviderSettings = {},
): DefaultModel {
  for (const [provider, handle] of DEFAULT_BY_PROVIDER) {
    if (resolveProviderEndpoint(provider, settings, env).apiKey) {
      return { handle, reason: `${provider} key found` };
    }
  }
  const why = hasAnyProviderKey(env, settings)
    ? "a provider is configured, but name its model with defaults.model in holdfast.yaml"
    : "no provider key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OLLAMA_BASE_URL or OPENAI_COMPATIBLE_BASE_URL)";
  return {
    handle: "sim/demo",
    reason: `USING THE SIM MODEL, a scripted demo, not a language model: ${why}`,
  };
}
