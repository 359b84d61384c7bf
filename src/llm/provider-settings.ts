import { z } from "zod";
import { type ModelHandle, type ProviderName, parseModelHandle } from "./handle.js";

/** True if `value` parses as an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const ApiKey = z.string().min(1);
const BaseUrl = z.string().refine(isHttpUrl, "must be an http(s) URL");

const Limit = z.int().min(1);

/**
 * What one provider allows this server, shared by all its agents: `concurrent` requests at
 * once, `requests_per_minute`, `tokens_per_minute`. Each absent field is unlimited.
 *
 * @example { concurrent: 5, requests_per_minute: 500, tokens_per_minute: 200000 }
 */
export const ProviderLimitsConfig = z
  .strictObject({
    concurrent: Limit.optional(),
    requests_per_minute: Limit.optional(),
    tokens_per_minute: Limit.optional(),
  })
  .transform(({ concurrent, requests_per_minute, tokens_per_minute }) => ({
    ...(concurrent === undefined ? {} : { concurrent }),
    ...(requests_per_minute === undefined ? {} : { requestsPerMinute: requests_per_minute }),
    ...(tokens_per_minute === undefined ? {} : { tokensPerMinute: tokens_per_minute }),
  }));
export type ProviderLimitsConfig = z.output<typeof ProviderLimitsConfig>;

/**
 * How to reach one provider: its key, the base URL of its API and its rate limits. Written in snake_case in
 * config files (`api_key`, `base_url`) like every other config field.
 */
export const ProviderEndpoint = z
  .strictObject({
    api_key: ApiKey.optional(),
    base_url: BaseUrl.optional(),
    limits: ProviderLimitsConfig.optional(),
  })
  .transform(({ api_key, base_url, limits }) => ({
    ...(api_key === undefined ? {} : { apiKey: api_key }),
    ...(base_url === undefined ? {} : { baseUrl: base_url }),
    ...(limits === undefined ? {} : { limits }),
  }));
export type ProviderEndpoint = z.output<typeof ProviderEndpoint>;

/**
 * Explicit provider settings, keyed by provider name. Anything given here wins over the
 * environment, so a config file can pin a key without touching env variables.
 *
 * @example { openai: { api_key: "sk-…" }, ollama: { base_url: "http://gpu-box:11434" } }
 */
export const ProviderSettings = z.strictObject({
  openai: ProviderEndpoint.optional(),
  anthropic: ProviderEndpoint.optional(),
  google: ProviderEndpoint.optional(),
  ollama: z
    .strictObject({ base_url: BaseUrl.optional(), limits: ProviderLimitsConfig.optional() })
    .transform(({ base_url, limits }) => ({
      ...(base_url === undefined ? {} : { baseUrl: base_url }),
      ...(limits === undefined ? {} : { limits }),
    }))
    .optional(),
  "openai-compatible": ProviderEndpoint.optional(),
});
export type ProviderSettings = z.output<typeof ProviderSettings>;

/** Where Ollama listens when nothing says otherwise. */
export const DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434";

/** The conventional env variable names, per provider (the AI SDK's own names). */
const ENV_NAMES: Record<ProviderName, { apiKey?: string; baseUrl?: string }> = {
  openai: { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  "openai-responses": { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  anthropic: { apiKey: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  google: { apiKey: "GOOGLE_GENERATIVE_AI_API_KEY", baseUrl: "GOOGLE_GENERATIVE_AI_BASE_URL" },
  ollama: { baseUrl: "OLLAMA_BASE_URL" },
  "openai-compatible": {
    apiKey: "OPENAI_COMPATIBLE_API_KEY",
    baseUrl: "OPENAI_COMPATIBLE_BASE_URL",
  },
  sim: {},
};

const LABELS: Record<ProviderName, string> = {
  openai: "OpenAI",
  "openai-responses": "OpenAI",
  anthropic: "Anthropic",
  google: "Google",
  ollama: "Ollama",
  "openai-compatible": "OpenAI-compatible",
  sim: "sim",
};

/** Which entry of the settings serves a provider: Responses uses OpenAI's key and URL. */
function settingsKey<P extends ProviderName>(
  provider: P,
): Exclude<P, "openai-responses"> | "openai" {
  return (provider === "openai-responses" ? "openai" : provider) as Exclude<P, "openai-responses">;
}

/** An env variable's value, with an empty string counted as unset (`KEY=` in a .env file). */
function fromEnv(env: NodeJS.ProcessEnv, name: string | undefined): string | undefined {
  const value = name === undefined ? undefined : env[name]?.trim();
  return value === "" ? undefined : value;
}

/**
 * Resolves the key and base URL for one provider: the settings object first, then the env.
 * For `ollama` the base URL returned is the server's OpenAI-compatible endpoint (`…/v1`),
 * which is how Holdfast talks to it.
 */
export function resolveProviderEndpoint(
  provider: ProviderName,
  settings: ProviderSettings = {},
  env: NodeJS.ProcessEnv = {},
): ProviderEndpoint {
  const names = ENV_NAMES[provider];
  if (provider === "sim") return {};
  if (provider === "ollama") {
    const root = settings.ollama?.baseUrl ?? fromEnv(env, names.baseUrl) ?? DEFAULT_OLLAMA_BASE_URL;
    const trimmed = root.replace(/\/+$/, "");
    return { baseUrl: trimmed.endsWith("/v1") ? trimmed : `${trimmed}/v1` };
  }
  const given = settings[settingsKey(provider)];
  const apiKey = given?.apiKey ?? fromEnv(env, names.apiKey);
  const baseUrl = given?.baseUrl ?? fromEnv(env, names.baseUrl);
  return {
    ...(apiKey !== undefined && { apiKey }),
    ...(baseUrl !== undefined && { baseUrl }),
  };
}

/**
 * Says why a model cannot be called yet (a missing key, a missing or malformed base URL, a
 * bad handle), or returns undefined when it can. Checked when an agent is created, so the
 * user gets a 4xx with this message instead of a failure in the middle of a turn.
 */
export function checkProviderReady(
  handle: string | ModelHandle,
  settings: ProviderSettings = {},
  env: NodeJS.ProcessEnv = {},
): string | undefined {
  let parsed: ModelHandle;
  try {
    parsed = typeof handle === "string" ? parseModelHandle(handle) : handle;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const { provider, model } = parsed;
  const names = ENV_NAMES[provider];
  const label = LABELS[provider];
  const endpoint = resolveProviderEndpoint(provider, settings, env);
  const where = `model '${provider}/${model}'`;
  if (names.apiKey && provider !== "openai-compatible" && endpoint.apiKey === undefined) {
    return (
      `${where} needs ${/^[AEIOU]/.test(label) ? "an" : "a"} ${label} API key: set ${names.apiKey} or '${settingsKey(provider)}.apiKey' ` +
      "in the provider settings"
    );
  }
  if (provider === "openai-compatible" && endpoint.baseUrl === undefined) {
    return (
      `${where} needs the server's base URL: set ${names.baseUrl} (e.g. ` +
      `http://localhost:8000/v1) or 'openai-compatible.baseUrl' in the provider settings`
    );
  }
  if (endpoint.baseUrl !== undefined && !isHttpUrl(endpoint.baseUrl)) {
    return `${where}: the ${label} base URL '${endpoint.baseUrl}' is not an http(s) URL (check ${names.baseUrl})`;
  }
  return undefined;
}

/**
 * True if any real provider is configured: an OpenAI, Anthropic or Google key, an
 * OpenAI-compatible base URL, or an explicit Ollama base URL (the default one does not count,
 * since nothing says a local Ollama is running). When false the server falls back to `sim`.
 */
export function hasAnyProviderKey(
  env: NodeJS.ProcessEnv,
  settings: ProviderSettings = {},
): boolean {
  const configured = (provider: ProviderName, field: "apiKey" | "baseUrl"): boolean => {
    const given = settings[provider as keyof ProviderSettings] as ProviderEndpoint | undefined;
    return given?.[field] !== undefined || fromEnv(env, ENV_NAMES[provider][field]) !== undefined;
  };
  return (
    configured("openai", "apiKey") ||
    configured("anthropic", "apiKey") ||
    configured("google", "apiKey") ||
    configured("openai-compatible", "baseUrl") ||
    configured("ollama", "baseUrl")
  );
}
