import type { MessageHit, Passage } from "../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "./turn-store.js";

/** What is embedded: archival passages, and messages conversation search finds. */
export type EmbeddedKind = "passage" | "message";

/** A row waiting for its vector: its text, and its place among its agent's rows of its kind. */
export interface EmbeddingTarget {
  id: string;
  text: string;
  /** Increases with insertion; pass the last one seen as `after` to read on. */
  position: number;
}

/** A vector for one row, made by `model`. */
export interface RowVector {
  id: string;
  vector: Float32Array;
}

/** How many of an agent's rows (passages and searchable messages) have a vector of a model. */
export interface EmbeddingCounts {
  embedded: number;
  total: number;
}

/**
 * Vectors of an agent's passages and messages, one per row, tagged with the model that made it
 * (a row embedded by another model counts as not embedded). Vectors are written apart from
 * the rows, after they are committed, so a row without one is normal: full-text still finds
 * it. Deleting a row or its agent deletes its vector. Searches are exact (cosine distance over
 * every vector of the agent and model), nearest first, ties in insertion order.
 */
export interface VectorStore {
  /**
   * Up to `limit` rows of `kind` after `after` (a position; 0 for the start) without a vector of
   * `model`, in insertion order.
   */
  unembedded(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]>;
  /**
   * Stores vectors made by `model`, replacing what those rows had. Rows deleted meanwhile are
   * skipped; returns how many were stored.
   */
  putVectors(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    vectors: readonly RowVector[],
  ): Promise<number>;
  /** The agent's passages nearest to `vector`, with `PassageSearch`'s filters. */
  nearestPassages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: PassageSearch,
  ): Promise<Passage[]>;
  /** The agent's searchable messages nearest to `vector`, with `MessageSearch`'s filters. */
  nearestMessages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: MessageSearch,
  ): Promise<MessageHit[]>;
  counts(agentId: string, model: string): Promise<EmbeddingCounts>;
  /** Agents with any passage or searchable message, to look over at start-up. */
  agentsWithRows(): Promise<string[]>;
}
