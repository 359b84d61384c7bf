import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { cosineDistance } from "../vector-math.js";
import type {
  EmbeddedKind,
  EmbeddingCounts,
  EmbeddingTarget,
  RowVector,
  VectorStore,
} from "../vector-store.js";
import { messageHits, passesFilters } from "./full-text.js";
import { copy } from "./rows.js";

/** The rows of one agent the in-memory store holds, as the vectors read them. */
export interface VectorRows {
  passages: readonly Passage[];
  messages: readonly AgentMessage[];
}

interface Stored {
  model: string;
  vector: Float32Array;
}

/**
 * `VectorStore` in process memory, exact cosine over every vector. Vectors are keyed by the
 * stored row objects themselves (weakly), so a deleted row's vector goes with it and a new row
 * that reuses a deleted id never inherits one.
 */
export class InMemoryVectors implements VectorStore {
  private readonly vectors = new WeakMap<object, Stored>();
  /** Insertion positions, handed out in list order the first time a row is looked at. */
  private readonly positions = new WeakMap<object, number>();
  private lastPosition = 0;

  constructor(
    private readonly rowsOf: (agentId: string) => VectorRows | undefined,
    private readonly agentIds: () => string[],
  ) {}

  private rows(agentId: string, kind: EmbeddedKind): { id: string; text: string; row: object }[] {
    const rows = this.rowsOf(agentId);
    if (!rows) return [];
    if (kind === "passage") return rows.passages.map((p) => ({ id: p.id, text: p.text, row: p }));
    return messageHits(rows.messages).map(({ message, hit }) => ({
      id: hit.id,
      text: hit.text,
      row: message,
    }));
  }

  private positionOf(row: object): number {
    let position = this.positions.get(row);
    if (position === undefined) {
      position = ++this.lastPosition;
      this.positions.set(row, position);
    }
    return position;
  }

  async unembedded(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    const targets: EmbeddingTarget[] = [];
    for (const { id, text, row } of this.rows(agentId, kind)) {
      const position = this.positionOf(row);
      if (position <= after || this.vectors.get(row)?.model === model) continue;
      if (targets.length >= limit) break;
      targets.push({ id, text, position });
    }
    return targets;
  }

  async putVectors(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    vectors: readonly RowVector[],
  ): Promise<number> {
    const byId = new Map(this.rows(agentId, kind).map((entry) => [entry.id, entry.row]));
    let stored = 0;
    for (const { id, vector } of vectors) {
      const row = byId.get(id);
      if (!row) continue;
      this.vectors.set(row, { model, vector: Float32Array.from(vector) });
      stored++;
    }
    return stored;
  }

  /** The rows with a vector of `model`, nearest first (ties in insertion order). */
  private nearest<T extends object>(rows: readonly T[], model: string, vector: Float32Array): T[] {
    return rows
      .flatMap((row, index) => {
        const stored = this.vectors.get(row);
        if (stored?.model !== model) return [];
        return [{ row, index, distance: cosineDistance(stored.vector, vector) }];
      })
      .sort((a, b) => a.distance - b.distance || a.index - b.index)
      .map((entry) => entry.row);
  }

  async nearestPassages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: PassageSearch,
  ): Promise<Passage[]> {
    const pool = (this.rowsOf(agentId)?.passages ?? []).filter((p) => passesFilters(p, options));
    const limit = Math.max(0, Math.floor(options.topK));
    return this.nearest(pool, model, vector).slice(0, limit).map(copy);
  }

  async nearestMessages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    const excluded = options.excludeRunId;
    const hits = messageHits(this.rowsOf(agentId)?.messages ?? [], options.roles).filter(
      ({ message }) => excluded === undefined || message.run_id !== excluded,
    );
    const byMessage = new Map(hits.map(({ message, hit }) => [message as object, hit]));
    const limit = Math.max(0, Math.floor(options.limit));
    const nearest = this.nearest([...byMessage.keys()], model, vector).slice(0, limit);
    return nearest.map((message) => ({ ...(byMessage.get(message) as MessageHit) }));
  }

  async counts(agentId: string, model: string): Promise<EmbeddingCounts> {
    const rows = [...this.rows(agentId, "passage"), ...this.rows(agentId, "message")];
    const embedded = rows.filter(({ row }) => this.vectors.get(row)?.model === model).length;
    return { embedded, total: rows.length };
  }

  async agentsWithRows(): Promise<string[]> {
    return this.agentIds()
      .filter((id) => this.rows(id, "passage").length + this.rows(id, "message").length > 0)
      .sort();
  }
}
