import type { EmbeddingModel } from "../llm/embedding-model.js";
import type { MessageHit, Passage } from "../records/memory-records.js";
import type { Store } from "../storage/store.js";
import type { StepCommit } from "../storage/turn-store.js";
import { reciprocalRankFusion } from "./fusion.js";

/** How long a search waits for its query's vector before it answers from full-text alone. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 10_000;

/** Each ranking reads this many candidates per result asked for, so fusion has room to work. */
const CANDIDATES_PER_RESULT = 3;
const MIN_CANDIDATES = 20;

export interface HybridSearchOptions {
  /** The embedding model of the agent's memory, or null when it has none (full-text only). */
  embeddingFor(agentId: string): Promise<EmbeddingModel | null>;
  /** Told after the agent's passages or messages were committed: they wait for vectors. */
  written(agentId: string): void;
  /** Told when a query could not be embedded (the search answered from full-text). */
  onQueryFailure?(agentId: string, error: unknown): void;
}

/**
 * The store, with archival and conversation search made hybrid: BM25 and vector rankings
 * fused by reciprocal rank fusion, with the same filters (tags, dates, roles, top-k) applied
 * to both. Rows not yet embedded are still found by full-text; an agent without an embedding
 * model, or a query whose embedding fails, is searched by full-text alone. Every other method
 * is the store's own (the result's prototype is the store), and commits tell `written`, which
 * schedules embedding off the turn's path.
 */
export function withHybridSearch(store: Store, options: HybridSearchOptions): Store {
  const queryVector = async (agentId: string, query: string) => {
    if (query.trim() === "") return null;
    try {
      const model = await options.embeddingFor(agentId);
      if (!model) return null;
      const signal = AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS);
      const [vector] = await model.embed([query], signal);
      return vector ? { model: model.handle, vector } : null;
    } catch (error) {
      options.onQueryFailure?.(agentId, error);
      return null;
    }
  };
  const pool = (limit: number) => Math.max(MIN_CANDIDATES, limit * CANDIDATES_PER_RESULT);
  const hybrid: Partial<Store> = {
    async searchPassages(agentId, query, search): Promise<Passage[]> {
      const embedded = await queryVector(agentId, query);
      if (!embedded) return store.searchPassages(agentId, query, search);
      const wide = { ...search, topK: pool(search.topK) };
      const [byText, byVector] = await Promise.all([
        store.searchPassages(agentId, query, wide),
        store.vectors.nearestPassages(agentId, embedded.model, embedded.vector, wide),
      ]);
      return reciprocalRankFusion([byText, byVector], (p) => p.id, search.topK);
    },
    async searchMessages(agentId, query, search): Promise<MessageHit[]> {
      const embedded = await queryVector(agentId, query);
      if (!embedded) return store.searchMessages(agentId, query, search);
      const wide = { ...search, limit: pool(search.limit) };
      const [byText, byVector] = await Promise.all([
        store.searchMessages(agentId, query, wide),
        store.vectors.nearestMessages(agentId, embedded.model, embedded.vector, wide),
      ]);
      return reciprocalRankFusion([byText, byVector], (m) => m.id, search.limit);
    },
    async commit(step: StepCommit): Promise<void> {
      await store.commit(step);
      if (step.messages.length > 0 || step.memory.passages.length > 0) {
        options.written(step.agentId);
      }
    },
    async insertPassages(agentId, passages): Promise<void> {
      await store.insertPassages(agentId, passages);
      options.written(agentId);
    },
  };
  return Object.assign(Object.create(store) as Store, hybrid);
}
