import type { Clock } from "../core/clock.js";
import {
  checkEmbeddingReady,
  createEmbeddingModel,
  type EmbeddingModel,
} from "../llm/embedding-model.js";
import type { ProviderSettings } from "../llm/provider-settings.js";
import { QUERY_EMBEDDING_TIMEOUT_MS } from "../memory/hybrid-search.js";
import { EmbeddingQueue } from "../runtime/embedding-queue.js";
import type { ChunkHit, FolderStore } from "../storage/folder-store.js";
import type { VectorStore } from "../storage/vector-store.js";

export interface FolderEmbeddingOptions {
  folders: FolderStore;
  providers: ProviderSettings;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  retry?: { baseMs: number; maxMs: number };
  log?: (message: string) => void;
}

/** Embeds folders' chunks in the background and answers vector searches of them. */
export interface FolderEmbedding {
  /** Marks a folder whose chunks changed; returns at once. */
  notify(folderId: string): void;
  /** The chunks of these folders nearest to `query` by meaning, or null when none can say. */
  nearest(folderIds: readonly string[], query: string, limit: number): Promise<ChunkHit[] | null>;
  queue: EmbeddingQueue;
}

/**
 * A folder's chunks embedded by the folder's `embedding` model (Letta's `embedding_config`),
 * through the same background queue as agents' memory: batches, backoff on transient failures,
 * one batch per folder in turn. A folder without a model, or with one this server cannot call
 * (no key), stays full-text only. `queue.start()` looks over every folder with chunks, to embed
 * what a restart or a new model left.
 */
export function folderEmbedding(options: FolderEmbeddingOptions): FolderEmbedding {
  const { folders } = options;
  const models = new Map<string, EmbeddingModel>();
  const modelFor = (handle: string): EmbeddingModel => {
    let model = models.get(handle);
    if (!model) {
      model = createEmbeddingModel(handle, {
        settings: options.providers,
        env: options.env,
        clock: options.clock,
      });
      models.set(handle, model);
    }
    return model;
  };
  const handleFor = async (folderId: string): Promise<string | null> => {
    const handle = (await folders.getFolder(folderId))?.embedding ?? null;
    if (handle === null) return null;
    return checkEmbeddingReady(handle, options.providers, options.env) ? null : handle;
  };
  const queue = new EmbeddingQueue({
    store: { vectors: chunkVectors(folders) },
    clock: options.clock,
    handleFor,
    modelFor,
    ...(options.retry && { retry: options.retry }),
    ...(options.log && { log: options.log }),
  });
  return {
    queue,
    notify: (folderId) => queue.notify(folderId),
    async nearest(folderIds, query, limit) {
      const byModel = new Map<string, string[]>();
      for (const id of folderIds) {
        const handle = await handleFor(id);
        if (handle) byModel.set(handle, [...(byModel.get(handle) ?? []), id]);
      }
      if (byModel.size === 0 || query.trim() === "") return null;
      const hits: ChunkHit[] = [];
      for (const [handle, ids] of byModel) {
        try {
          const signal = AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS);
          const [vector] = await modelFor(handle).embed([query], signal);
          if (vector) hits.push(...(await folders.nearestChunks(ids, handle, vector, limit)));
        } catch (error) {
          options.log?.(`embedding a folder query failed: ${(error as Error).message}`);
        }
      }
      return hits;
    },
  };
}

/** A folder's chunks as the queue's rows: the folder is the owner, chunks the `passage` kind. */
function chunkVectors(folders: FolderStore): VectorStore {
  const none = async () => [];
  return {
    unembedded: async (folderId, kind, model, after, limit) =>
      kind === "passage" ? folders.unembeddedChunks(folderId, model, after, limit) : [],
    putVectors: async (folderId, kind, model, vectors) =>
      kind === "passage" ? folders.putChunkVectors(folderId, model, vectors) : 0,
    // Progress is not shown for folders: the queue asks only when a caller does.
    counts: async () => ({ embedded: 0, total: 0 }),
    agentsWithRows: () => folders.foldersWithChunks(),
    nearestPassages: none,
    nearestMessages: none,
  };
}
