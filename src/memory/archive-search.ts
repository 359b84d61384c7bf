import type { Passage } from "../records/memory-records.js";
import type { Store } from "../storage/store.js";
import { reciprocalRankFusion } from "./fusion.js";

/**
 * The store, with an agent's archival search reaching the archives attached to it: its own
 * passages and its archives' ranked apart (each by BM25 within its own rows) and fused by
 * reciprocal rank, with the same filters and top-k. An agent with no archive is searched as
 * before, at the cost of one lookup of its attachments. Every other method is the store's own
 * (the result's prototype is the store), so hybrid search can wrap this in turn.
 */
export function withArchives(store: Store): Store {
  const searchPassages: Store["searchPassages"] = async (agentId, query, search) => {
    const archiveIds = await store.archives.agentArchives(agentId);
    if (archiveIds.length === 0) return store.searchPassages(agentId, query, search);
    const [own, attached] = await Promise.all([
      store.searchPassages(agentId, query, search),
      store.archives.searchPassages(archiveIds, query, search),
    ]);
    const shared = attached.map(
      ({ id, text, tags, created_at_ms }): Passage => ({ id, text, tags, created_at_ms }),
    );
    return reciprocalRankFusion([own, shared], (p) => p.id, search.topK);
  };
  return Object.assign(Object.create(store) as Store, { searchPassages });
}
