import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import * as sqliteVec from "sqlite-vec";
import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { cosineDistance, vectorBytes, vectorFromBytes } from "../vector-math.js";
import type {
  EmbeddedKind,
  EmbeddingCounts,
  EmbeddingTarget,
  RowVector,
  VectorStore,
} from "../vector-store.js";
import { hitOf, passageOf, storageError, text } from "./rows.js";

/** Which vector functions a connection got: sqlite-vec's, or the exact JS stand-in. */
export type VectorFunctions = { kind: "sqlite-vec"; version: string } | { kind: "js" };

/**
 * Loads sqlite-vec into the connection (opened with `allowExtension`) for
 * `vec_distance_cosine`. Where its native library cannot load (a platform without a prebuilt
 * one), the same function is registered in JavaScript: same results, slower.
 */
export function loadVectorFunctions(db: DatabaseSync): VectorFunctions {
  try {
    db.loadExtension(sqliteVec.getLoadablePath());
    const row = db.prepare("SELECT vec_version() AS version").get();
    return { kind: "sqlite-vec", version: String(row?.version) };
  } catch {
    db.function("vec_distance_cosine", { deterministic: true }, (a, b) =>
      a instanceof Uint8Array && b instanceof Uint8Array
        ? cosineDistance(vectorFromBytes(a), vectorFromBytes(b))
        : null,
    );
    return { kind: "js" };
  } finally {
    db.enableLoadExtension(false);
  }
}

/** The filters `PassageSearch` adds, with parameters ?4…?7 (NULL: no such filter). */
const PASSAGE_FILTERS = `
      AND NOT EXISTS (
        SELECT 1 FROM json_each(?4) AS wanted
        WHERE wanted.value NOT IN (SELECT value FROM json_each(p.tags))
      )
      AND (?5 IS NULL OR EXISTS (
        SELECT 1 FROM json_each(p.tags) AS tag WHERE tag.value IN (SELECT value FROM json_each(?5))
      ))
      AND (?6 IS NULL OR p.created_at_ms >= ?6) AND (?7 IS NULL OR p.created_at_ms <= ?7)`;

const SQL = {
  unembeddedPassages: `SELECT p.seq AS position, p.id, p.text FROM passages AS p
    LEFT JOIN passage_vectors AS v ON v.row_seq = p.seq AND v.model = ?2
    WHERE p.agent_id = ?1 AND p.seq > ?3 AND v.row_seq IS NULL ORDER BY p.seq LIMIT ?4`,
  unembeddedMessages: `SELECT m.seq AS position, m.id, m.search_text AS text FROM messages AS m
    LEFT JOIN message_vectors AS v ON v.row_seq = m.seq AND v.model = ?2
    WHERE m.agent_id = ?1 AND m.seq > ?3 AND m.search_text IS NOT NULL AND v.row_seq IS NULL
    ORDER BY m.seq LIMIT ?4`,
  putPassageVector: `INSERT INTO passage_vectors (row_seq, agent_id, model, vector)
    SELECT seq, agent_id, ?3, ?4 FROM passages WHERE id = ?1 AND agent_id = ?2
    ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  putMessageVector: `INSERT INTO message_vectors (row_seq, agent_id, model, vector)
    SELECT seq, agent_id, ?3, ?4 FROM messages
    WHERE id = ?1 AND agent_id = ?2 AND search_text IS NOT NULL
    ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  nearestPassages: `SELECT p.id, p.text, p.tags, p.created_at_ms
    FROM passage_vectors AS v JOIN passages AS p ON p.seq = v.row_seq
    WHERE v.agent_id = ?1 AND v.model = ?2 ${PASSAGE_FILTERS}
    ORDER BY vec_distance_cosine(v.vector, ?3), p.seq LIMIT ?8`,
  // Without filters, distances are computed over the vectors table alone and only the nearest
  // rows are joined: joining first costs several times the distance computation at 100k rows.
  nearestPassagesUnfiltered: `SELECT p.id, p.text, p.tags, p.created_at_ms FROM (
      SELECT row_seq, vec_distance_cosine(vector, ?3) AS distance FROM passage_vectors
      WHERE agent_id = ?1 AND model = ?2 ORDER BY distance, row_seq LIMIT ?4
    ) AS nearest JOIN passages AS p ON p.seq = nearest.row_seq
    ORDER BY nearest.distance, p.seq`,
  nearestMessagesUnfiltered: `SELECT m.id, m.search_role AS role, m.search_text AS text, m.created_at
    FROM (
      SELECT row_seq, vec_distance_cosine(vector, ?3) AS distance FROM message_vectors
      WHERE agent_id = ?1 AND model = ?2 ORDER BY distance, row_seq LIMIT ?4
    ) AS nearest JOIN messages AS m ON m.seq = nearest.row_seq
    ORDER BY nearest.distance, m.seq`,
  nearestMessages: `SELECT m.id, m.search_role AS role, m.search_text AS text, m.created_at
    FROM message_vectors AS v JOIN messages AS m ON m.seq = v.row_seq
    WHERE v.agent_id = ?1 AND v.model = ?2
      AND (?4 IS NULL OR m.search_role IN (SELECT value FROM json_each(?4)))
      AND (?6 IS NULL OR json_extract(m.body, '$.run_id') IS NOT ?6)
    ORDER BY vec_distance_cosine(v.vector, ?3), m.seq LIMIT ?5`,
  countEmbedded: `SELECT
    (SELECT count(*) FROM passage_vectors WHERE agent_id = ?1 AND model = ?2) +
    (SELECT count(*) FROM message_vectors WHERE agent_id = ?1 AND model = ?2) AS n`,
  countRows: `SELECT (SELECT count(*) FROM passages WHERE agent_id = ?1) +
    (SELECT count(*) FROM messages WHERE agent_id = ?1 AND search_text IS NOT NULL) AS n`,
  agentsWithRows: `SELECT agent_id FROM passages UNION
    SELECT agent_id FROM messages WHERE search_text IS NOT NULL ORDER BY agent_id`,
  begin: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  rollback: "ROLLBACK",
} as const;

type Statements = Record<keyof typeof SQL, StatementSync>;

/** `VectorStore` over the SQLite store's connection (vectors in their own tables). */
export class SqliteVectors implements VectorStore {
  private readonly sql: Statements;
  /** The vector functions this connection searches with. */
  readonly functions: VectorFunctions;

  constructor(private readonly db: DatabaseSync) {
    this.functions = loadVectorFunctions(db);
    this.sql = Object.fromEntries(
      Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
    ) as Statements;
  }

  async unembedded(
    agentId: string,
    kind: EmbeddedKind,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    const statement =
      kind === "passage" ? this.sql.unembeddedPassages : this.sql.unembeddedMessages;
    return statement.all(agentId, model, after, Math.max(0, Math.floor(limit))).map((row) => ({
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
    const statement = kind === "passage" ? this.sql.putPassageVector : this.sql.putMessageVector;
    try {
      this.sql.begin.run();
      let stored = 0;
      for (const { id, vector } of vectors) {
        stored += Number(statement.run(id, agentId, model, vectorBytes(vector)).changes);
      }
      this.sql.commit.run();
      return stored;
    } catch (error) {
      if (this.db.isTransaction) this.sql.rollback.run();
      throw storageError(error, agentId);
    }
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
    if (tags === undefined && anyTags === undefined && fromMs === undefined && toMs === undefined) {
      const rows = this.sql.nearestPassagesUnfiltered.all(
        agentId,
        model,
        vectorBytes(vector),
        limit,
      );
      return rows.map(passageOf);
    }
    const json = (list?: readonly string[]) => (list === undefined ? null : JSON.stringify(list));
    const params: SQLInputValue[] = [
      agentId,
      model,
      vectorBytes(vector),
      json(options.tags),
      json(options.anyTags),
      options.fromMs ?? null,
      options.toMs ?? null,
      limit,
    ];
    return this.sql.nearestPassages.all(...params).map(passageOf);
  }

  async nearestMessages(
    agentId: string,
    model: string,
    vector: Float32Array,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const exclude = options.excludeRunId ?? null;
    if (options.roles === undefined && exclude === null) {
      const rows = this.sql.nearestMessagesUnfiltered.all(
        agentId,
        model,
        vectorBytes(vector),
        limit,
      );
      return rows.map(hitOf);
    }
    const roles = options.roles === undefined ? null : JSON.stringify(options.roles);
    return this.sql.nearestMessages
      .all(agentId, model, vectorBytes(vector), roles, limit, exclude)
      .map(hitOf);
  }

  async counts(agentId: string, model: string): Promise<EmbeddingCounts> {
    const embedded = Number(this.sql.countEmbedded.get(agentId, model)?.n ?? 0);
    const total = Number(this.sql.countRows.get(agentId)?.n ?? 0);
    return { embedded, total };
  }

  async agentsWithRows(): Promise<string[]> {
    return this.sql.agentsWithRows.all().map((row) => text(row, "agent_id"));
  }
}
