import type { HoldfastConfig } from "../config/config-file.js";
import { knownDimensions } from "../llm/embedding-model.js";
import { parseModelHandle } from "../llm/handle.js";

/** Letta's `provider_type` / `embedding_endpoint_type` of each embedding provider. */
const PROVIDER_TYPES: Record<string, string> = {
  openai: "openai",
  google: "google_ai",
  ollama: "ollama",
  "openai-compatible": "openai",
};

/** The embedding handles the config names (its `defaults` and types), once each, in order. */
export function configuredEmbeddings(config: HoldfastConfig): string[] {
  const handles = config.registry
    .names()
    .map((name) => config.registry.get(name)?.memory.embedding);
  return [...new Set(handles.filter((handle): handle is string => typeof handle === "string"))];
}

/**
 * Letta's `EmbeddingModel` for a configured handle. `embedding_dim` is the model's known size
 * (0 for a model Holdfast does not know: its size is whatever its server returns).
 */
export function embeddingModelView(handle: string) {
  const { provider, model } = parseModelHandle(handle);
  const type = PROVIDER_TYPES[provider] ?? provider;
  return {
    handle,
    name: model,
    display_name: handle,
    provider_name: provider,
    provider_type: type,
    model_type: "embedding",
    embedding_model: model,
    embedding_endpoint_type: type,
    embedding_dim: knownDimensions(handle) ?? 0,
    embedding_chunk_size: 300,
    batch_size: 64,
  };
}
