import { ValidationError } from "../core/errors.js";

/**
 * The model providers Holdfast can reach. `openai`, `ollama` and `openai-compatible` speak the
 * OpenAI chat-completions wire format; `openai-responses` is OpenAI's Responses API with the
 * `openai` key and base URL; `sim` is the scripted, key-free model.
 */
export const PROVIDERS = [
  "openai",
  "openai-responses",
  "anthropic",
  "google",
  "ollama",
  "openai-compatible",
  "sim",
] as const;

/** One of `PROVIDERS`. */
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * A parsed model handle. `model` is the name the provider's server receives, and may itself
 * contain slashes (`openai-compatible/meta-llama/Llama-3.1-8B` → `meta-llama/Llama-3.1-8B`).
 */
export interface ModelHandle {
  provider: ProviderName;
  model: string;
}

/** True if `name` is one of `PROVIDERS`. */
export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/**
 * Parses `provider/model`, splitting at the first slash only.
 *
 * @example parseModelHandle("openai/gpt-4.1-mini") // { provider: "openai", model: "gpt-4.1-mini" }
 * @param path Where the handle came from, for the error's field path (default `model`).
 * @throws ValidationError when the handle is malformed or names an unknown provider.
 */
export function parseModelHandle(handle: string, path = "model"): ModelHandle {
  const fail = (message: string): never => {
    throw new ValidationError(message, [{ path, message }]);
  };
  if (handle.trim() !== handle || handle === "") {
    fail(`model handle '${handle}' must be 'provider/model' without surrounding spaces`);
  }
  const slash = handle.indexOf("/");
  if (slash < 0) {
    fail(`model handle '${handle}' must be 'provider/model', e.g. 'openai/gpt-4.1-mini'`);
  }
  const provider = handle.slice(0, slash);
  const model = handle.slice(slash + 1);
  if (!isProviderName(provider)) {
    // A wrong-case provider is a common slip; say so rather than only listing names.
    const hint = isProviderName(provider.toLowerCase())
      ? ` (did you mean '${provider.toLowerCase()}'?)`
      : "";
    return fail(
      `unknown model provider '${provider}'${hint}; known providers: ${PROVIDERS.join(", ")}`,
    );
  }
  if (model.trim() === "") {
    fail(`model handle '${handle}' names no model after '${provider}/'`);
  }
  return { provider, model };
}

/** The handle string of a parsed handle: `provider/model`. */
export function formatModelHandle(handle: ModelHandle): string {
  return `${handle.provider}/${handle.model}`;
}
