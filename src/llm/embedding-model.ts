import { type Clock, systemClock } from "../core/clock.js";
import { ValidationError } from "../core/errors.js";
import type { SdkEmbedder } from "./embedding-sdk.js";
import { type ModelHandle, type ProviderName, parseModelHandle } from "./handle.js";
import { checkProviderReady, type ProviderSettings } from "./provider-settings.js";

/**
 * Turns texts into vectors, one per text, in order. Failures are `ModelError`s (transient ones
 * `retryable`); the caller owns retries, so one `embed` is exactly one request.
 */
export interface EmbeddingModel {
  /** `provider/model`, as configured. */
  readonly handle: string;
  /** The most texts one request carries; callers batch by it. */
  readonly maxBatch: number;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Providers whose AI SDK package serves embeddings with the keys Holdfast resolves. */
export const EMBEDDING_PROVIDERS = ["openai", "google", "ollama", "openai-compatible"] as const;

/** Texts per request unless the config says otherwise: OpenAI accepts up to 2048. */
export const DEFAULT_EMBEDDING_BATCH = 64;

/** Vector sizes of well-known models, for Letta's listing before the first call answers. */
const KNOWN_DIMENSIONS: readonly [RegExp, number][] = [
  [/^text-embedding-3-large$/, 3072],
  [/^text-embedding-(3-small|ada-002)$/, 1536],
  [/^nomic-embed-text/, 768],
  [/^mxbai-embed-large/, 1024],
  [/^(gemini-embedding|text-embedding-004)/, 768],
];

/** The vector size of a model if it is a well-known one, else null. */
export function knownDimensions(handle: string): number | null {
  const { model } = parseModelHandle(handle);
  const name = model.slice(model.lastIndexOf("/") + 1);
  return KNOWN_DIMENSIONS.find(([pattern]) => pattern.test(name))?.[1] ?? null;
}

/**
 * Checks an embedding handle's shape and provider; the message says what is wrong, or
 * undefined when it is well formed. Whether its key is set is `checkEmbeddingReady`'s question.
 */
export function embeddingHandleProblem(handle: string): string | undefined {
  let parsed: ModelHandle;
  try {
    parsed = parseModelHandle(handle);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (!(EMBEDDING_PROVIDERS as readonly ProviderName[]).includes(parsed.provider)) {
    return `'${parsed.provider}' serves no embedding models here; use one of ${EMBEDDING_PROVIDERS.join(", ")} (e.g. openai/text-embedding-3-small)`;
  }
  return undefined;
}

/** Why an embedding model cannot be called yet (bad handle, missing key or URL), or undefined. */
export function checkEmbeddingReady(
  handle: string,
  settings: ProviderSettings = {},
  env: NodeJS.ProcessEnv = {},
): string | undefined {
  return embeddingHandleProblem(handle) ?? checkProviderReady(handle, settings, env);
}

export interface EmbeddingModelOptions {
  settings?: ProviderSettings;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  maxBatch?: number;
}

/**
 * An embedding model over the AI SDK provider its handle names.
 *
 * @example createEmbeddingModel("ollama/nomic-embed-text").embed(["hello"])
 * @throws ValidationError for a bad handle or a provider without its key or base URL.
 */
export function createEmbeddingModel(
  handle: string,
  options: EmbeddingModelOptions = {},
): EmbeddingModel {
  const settings = options.settings ?? {};
  const env = options.env ?? process.env;
  const problem = checkEmbeddingReady(handle, settings, env);
  if (problem) throw new ValidationError(problem, [{ path: "embedding", message: problem }]);
  const parsed = parseModelHandle(handle);
  const clock = options.clock ?? systemClock;
  // The AI SDK and its providers load on the first embedding, not at start-up.
  let embedder: Promise<SdkEmbedder> | undefined;
  return {
    handle,
    maxBatch: options.maxBatch ?? DEFAULT_EMBEDDING_BATCH,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      embedder ??= import("./embedding-sdk.js").then((sdk) =>
        sdk.sdkEmbedder(parsed, settings, env, clock),
      );
      return (await embedder)(texts, signal);
    },
  };
}
