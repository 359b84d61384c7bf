import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, type EmbeddingModel as SdkEmbeddingModel } from "ai";
import type { Clock } from "../core/clock.js";
import { toModelError } from "./ai-sdk-errors.js";
import type { ModelHandle } from "./handle.js";
import { type ProviderSettings, resolveProviderEndpoint } from "./provider-settings.js";

/** One embedding request: texts in, one vector per text out, failures as `ModelError`. */
export type SdkEmbedder = (
  texts: readonly string[],
  signal?: AbortSignal,
) => Promise<Float32Array[]>;

/**
 * The AI SDK side of `createEmbeddingModel`, loaded on its first call (the SDK and its
 * providers take a good part of start-up). The handle was checked before.
 */
export function sdkEmbedder(
  handle: ModelHandle,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv,
  clock: Clock,
): SdkEmbedder {
  const model = sdkModel(handle, settings, env);
  return async (texts, signal) => {
    try {
      const { embeddings } = await embedMany({
        model,
        values: [...texts],
        maxRetries: 0,
        maxParallelCalls: 1,
        ...(signal && { abortSignal: signal }),
      });
      return embeddings.map((vector) => Float32Array.from(vector));
    } catch (error) {
      throw toModelError(error, clock.now());
    }
  };
}

function sdkModel(
  { provider, model }: ModelHandle,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv,
): SdkEmbeddingModel {
  // Pass what we resolved explicitly, so the SDK never falls back to reading process.env.
  const { apiKey, baseUrl: baseURL } = resolveProviderEndpoint(provider, settings, env);
  switch (provider) {
    case "openai":
      return createOpenAI({ apiKey, baseURL }).embedding(model);
    case "google":
      return createGoogle({ apiKey, baseURL }).embedding(model);
    case "ollama":
    case "openai-compatible":
      return createOpenAICompatible({
        name: provider,
        baseURL: baseURL ?? "",
        ...(apiKey !== undefined && { apiKey }),
      }).embeddingModel(model);
    default:
      throw new Error(`unreachable: ${provider} is refused by embeddingHandleProblem`);
  }
}
