import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { cosineDistance } from "../vector-math.js";
import type {
  EmbeddedKind,
  EmbeddingCounts,
  EmbeddingTarget,
  RowVector,
  VectorStore,
} from "../vector-store.js";
import { inTransaction } from "./pool.js";
import { hitOf, passageOf, type Row, text } from "./rows.js";
import type { Queryable } from "./search.js";

const SQL = {
  unembeddedPassages: `SELECT p.seq AS position, p.id, p.text FROM passages AS p
    LEFT JOIN passage_vectors AS v ON v.row_seq = p.seq AND v.model = $2
    WHERE p.agent_id = $1 AND p.seq > $3 AND v.row_seq IS NULL ORDER BY p.seq LIMIT $4`,
  unembeddedMessages: `SELECT m.seq AS position, m.id, m.search_text AS text FROM messages AS m
    LEFT JOIN message_vectors AS v ON v.row_seq = m.seq AND v.model = $2
    WHERE m.agent_id = $1 AND m.seq > $3 AND m.search_text IS NOT NULL AND v.row_seq IS NULL
    ORDER BY m.seq LIMIT $4`,
  putPassageVector: `INSERT INTO passage_vectors (row_seq, agent_id, model, vector)
    SELECT seq, agent_id, $3, $4 FROM passages WHERE id = $1 AND agent_id = $2
    ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  putMessageVector: `INSERT INTO message_vectors (row_seq, agent_id, model, vector)
    SELECT seq, agent_id, $3, $4 FROM messages
    WHERE id = $1 AND agent_id = $2 AND search_text IS NOT NULL
    ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  // $3, $4: tags a passage must all have / one of; $5, $6: the creation time range.
  passageCandidates: `SELECT p.seq, p.id, p.text, p.tags, p.created_at_ms, v.vector
    FROM passage_vectors AS v JOIN passages AS p ON p.seq = v.row_seq
    WHERE v.agent_id = $1 AND v.model = $2
      AND ($3::jsonb IS NULL OR p.tags @> $3) AND ($4::text[] IS NULL OR p.tags ?| $4)
      AND ($5::float8 IS NULL OR p.created_at_ms >= $5)
      AND ($6::float8 IS NULL OR p.created_at_ms <= $6)`,
  messageCandidates: `SELECT m.seq, m.id, m.search_role AS role, m.search_text AS text,
      m.created_at, v.vector
    FROM message_vectors AS v JOIN messages AS m ON m.seq = v.row_seq
    WHERE v.agent_id = $1 AND v.model = $2
      AND ($3::text[] IS NULL OR m.search_role = ANY ($3))
      AND ($4::text IS NULL OR m.run_id IS DISTINCT FROM $4)`,
  counts: `SELECT
    (SELECT count(*) FROM passage_vectors WHERE agent_id = $1 AND model = $2) +
    (SELECT count(*) FROM message_vectors WHERE agent_id = $1 AND model = $2) AS embedded,
    (SELECT count(*) FROM passages WHERE agent_id = $1) +
    (SELECT count(*) FROM messages WHERE agent_id = $1 AND search_text IS NOT NULL) AS total`,
  agentsWithRows: `SELECT agent_id FROM passages UNION
    SELECT agent_id FROM messages WHERE search_text IS NOT NULL ORDER BY agent_id`,
} as const;

/**
 * `VectorStore` over PostgreSQL without pgvector: vectors are `real[]` in their own tables, and
 * a search reads the agent's vectors of the model (with the filters applied in SQL) and ranks
 * them by exact cosine distance in Holdfast, nearest first, ties in insertion order.
 */
export class PostgresVectors implements VectorStore {
  constructor(private readonly pool: Queryable & Parameters<typeof inTransaction>[0]) {}

  async unembedded(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    const sql = kind === "passage" ? SQL.unembeddedPassages : SQL.unembeddedMessages;
    const params = [agentId, model, after, Math.max(0, Math.floor(limit))];
    const { rows } = await this.pool.query(sql, params);
    return rows.map((row) => ({
      id: text(row, "id"),
      text: text(row, "text"),
      position: Number(row.position),
    }));
  }

  async putVectors(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    vectors: readonly RowVector[],
  ): Promise<number> {
    const sql = kind === "passage" ? SQL.putPassageVector : SQL.putMessageVector;
    return inTransaction(this.pool, async (tx) => {
      let stored = 0;
      for (const { id, vector } of vectors) {
        const { rowCount } = await tx.query(sql, [id, agentId, model, Array.from(vector)]);
        stored += rowCount ?? 0;
      }
      return stored;
    });
  }

  async nearestPassages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: PassageSearch,
  ): Promise<Passage[]> {
    const limit = Math.floor(options.topK);
    if (!(limit > 0)) return [];
    const { tags, anyTags, fromMs, toMs } = options;
    const params = [
      agentId,
      model,
      tags === undefined ? null : JSON.stringify(tags),
      anyTags ?? null,
      fromMs ?? null,
      toMs ?? null,
    ];
    const { rows } = await this.pool.query(SQL.passageCandidates, params);
    return nearest(rows, vector, limit).map(passageOf);
  }

  async nearestMessages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const params = [agentId, model, options.roles ?? null, options.excludeRunId ?? null];
    const { rows } = await this.pool.query(SQL.messageCandidates, params);
    return nearest(rows, vector, limit).map(hitOf);
  }

  async counts(agentId: string, model: string): Promise<EmbeddingCounts> {
    const row = (await this.pool.query(SQL.counts, [agentId, model])).rows[0];
    return { embedded: Number(row?.embedded ?? 0), total: Number(row?.total ?? 0) };
  }

  async agentsWithRows(): Promise<string[]> {
    return (await this.pool.query(SQL.agentsWithRows)).rows.map((row) => text(row, "agent_id"));
  }
}

/** The `limit` rows nearest to `vector` by cosine distance, ties in insertion order. */
function nearest(rows: readonly Row[], vector: Float32Array, limit: number): Row[] {
  return rows
    .map((row) => ({
      row,
      seq: Number(row.seq),
      distance: cosineDistance(Float32Array.from(row.vector as number[]), vector),
    }))
    .sort((a, b) => a.distance - b.distance || a.seq - b.seq)
    .slice(0, limit)
    .map((entry) => entry.row);
}
