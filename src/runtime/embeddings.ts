import type { HoldfastConfig } from "../config/config-file.js";
import type { Clock } from "../core/clock.js";
import { createEmbeddingModel, type EmbeddingModel } from "../llm/embedding-model.js";
import { withHybridSearch } from "../memory/hybrid-search.js";
import type { Store } from "../storage/store.js";
import { embeddingHandleOf } from "../types/embedding-handle.js";
import { AgentOverrides } from "../types/overrides.js";
import { EmbeddingQueue } from "./embedding-queue.js";

export interface EmbeddingsOptions {
  store: Store;
  config: HoldfastConfig;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Overrides how embedding models are made (tests, benches). */
  modelFor?: (handle: string) => EmbeddingModel;
  retry?: { baseMs: number; maxMs: number };
  log?: (message: string) => void;
}

/** Hybrid search wired up: the store the engine and services use, and its embedding queue. */
export interface Embeddings {
  /** The store with hybrid search, telling the queue of every write. */
  store: Store;
  queue: EmbeddingQueue;
  /** The agent's embedding model handle, or null (full-text only, or no such agent). */
  handleFor(agentId: string): Promise<string | null>;
  /** The agent's model changed here: the next look-up reads it, and its memory is re-embedded. */
  modelChanged(agentId: string): void;
}

/**
 * How long an agent's embedding handle is reused. Every commit and every search asks for it
 * (four times a turn), and reading the agent record each time cost ~35 µs; a change made in
 * this process is seen at once (`modelChanged`), one made by another process sharing the store
 * (an API server beside Restate workers) within this long.
 */
export const EMBEDDING_HANDLE_TTL_MS = 1_000;

/** Handles remembered at most: past it they are all read again (a burst of many agents). */
const MAX_KNOWN_HANDLES = 10_000;

/**
 * Wires embeddings over a store: models made once per handle from the provider settings, the
 * background queue, and the store whose searches fuse BM25 with vectors.
 */
export function wireEmbeddings(options: EmbeddingsOptions): Embeddings {
  const { config, store } = options;
  const models = new Map<string, EmbeddingModel>();
  const modelFor =
    options.modelFor ??
    ((handle: string) => {
      let model = models.get(handle);
      if (!model) {
        model = createEmbeddingModel(handle, {
          settings: config.providers,
          env: options.env,
          clock: options.clock,
        });
        models.set(handle, model);
      }
      return model;
    });
  const readHandle = async (agentId: string): Promise<string | null> => {
    const record = await store.getAgent(agentId);
    const type = record && config.registry.get(record.agent_type);
    if (!record || !type) return null;
    const overrides = AgentOverrides.safeParse(record.overrides);
    return embeddingHandleOf(type, overrides.success ? overrides.data : {});
  };
  const known = new Map<string, { handle: string | null; until: number }>();
  // Bumped by every change made here: a read begun before a change is not remembered.
  let changes = 0;
  const handleFor = async (agentId: string): Promise<string | null> => {
    const now = options.clock.now();
    const cached = known.get(agentId);
    if (cached && cached.until > now) return cached.handle;
    const changesBefore = changes;
    const handle = await readHandle(agentId);
    if (changesBefore === changes) {
      if (known.size >= MAX_KNOWN_HANDLES) known.clear();
      known.set(agentId, { handle, until: now + EMBEDDING_HANDLE_TTL_MS });
    }
    return handle;
  };
  const queue = new EmbeddingQueue({
    store,
    clock: options.clock,
    handleFor,
    modelFor,
    ...(options.retry && { retry: options.retry }),
    ...(options.log && { log: options.log }),
  });
  const hybrid = withHybridSearch(store, {
    embeddingFor: async (agentId) => {
      const handle = await handleFor(agentId);
      return handle === null ? null : modelFor(handle);
    },
    written: (agentId) => queue.notify(agentId),
  });
  return {
    store: hybrid,
    queue,
    handleFor,
    modelChanged: (agentId) => {
      changes += 1;
      known.delete(agentId);
      queue.notify(agentId);
    },
  };
}
