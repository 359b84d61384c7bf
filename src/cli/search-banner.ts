import type { HoldfastConfig } from "../config/config-file.js";
import { checkEmbeddingReady } from "../llm/embedding-model.js";
import { configuredEmbeddings } from "../service/embedding-views.js";
import type { VectorStore } from "../storage/vector-store.js";

/**
 * The start-up line saying how memory is searched: full-text only until an embedding model is
 * configured, else hybrid, with the models and how vectors are compared.
 */
export function describeSearch(
  config: HoldfastConfig,
  vectors: VectorStore,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const handles = configuredEmbeddings(config);
  if (handles.length === 0) {
    return "full-text (BM25) only: no embedding model configured (set defaults.memory.embedding, e.g. openai/text-embedding-3-small)";
  }
  const functions = (vectors as { functions?: { kind: string; version?: string } }).functions;
  const how =
    functions === undefined
      ? "exact cosine in memory"
      : functions.kind === "sqlite-vec"
        ? `sqlite-vec ${functions.version}, exact cosine`
        : "exact cosine in JavaScript (sqlite-vec did not load)";
  // A model that cannot be called (no key) leaves its agents on full-text: say so now.
  const shown = handles.map((handle) => {
    const problem = checkEmbeddingReady(handle, config.providers, env);
    return problem ? `${handle} (NOT READY, full-text until fixed: ${problem})` : handle;
  });
  return `hybrid BM25 + vectors (${how}); embeddings by ${shown.join(", ")}`;
}
