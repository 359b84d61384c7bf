import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { anyOf } from "./full-text.js";
import { hitOf, passageOf, type Row } from "./rows.js";

/**
 * Ranked full-text search over one agent's rows. `ts_rank` scores how well a row matches each
 * query word (normalised by the row's length); each word's score is weighted by how rare the
 * word is among the agent's own rows (BM25's inverse document frequency, counted through the
 * GIN index on the agent's terms), so a rare word outranks a common one, as SQLite's BM25 and
 * the in-memory store rank. Ties keep creation order.
 */
function weighted(table: string, column: string): string {
  return `weights AS (
    SELECT quote_literal(term)::tsquery AS q,
      ln(1 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
    FROM unnest($2::text[]) AS term
    CROSS JOIN (SELECT count(*)::float8 AS n FROM ${table}
      WHERE agent_id = $1 AND ${column} IS NOT NULL) AS total
    CROSS JOIN LATERAL (SELECT count(*)::float8 AS n FROM ${table}
      WHERE ${column} @@ quote_literal(term)::tsquery) AS df
  )`;
}

function score(column: string): string {
  return `(SELECT sum(w.idf * ts_rank(${column}, w.q, 1)) FROM weights AS w)`;
}

const SEARCH_MESSAGES = `WITH ${weighted("messages", "search_terms")}
  SELECT m.id, m.search_role AS role, m.search_text AS text, m.created_at
  FROM messages AS m
  WHERE m.search_terms @@ $3::tsquery AND ($4::text[] IS NULL OR m.search_role = ANY ($4))
    AND ($6::text IS NULL OR m.run_id IS DISTINCT FROM $6)
  ORDER BY ${score("m.search_terms")} DESC, m.seq LIMIT $5`;

// $5: tags a passage must all have (JSONB array); $6: tags it must have one of; $7, $8: the
// creation time range, both ends included. NULL means no such filter.
const SEARCH_PASSAGES = `WITH ${weighted("passages", "terms")}
  SELECT p.id, p.text, p.tags, p.created_at_ms
  FROM passages AS p
  WHERE p.terms @@ $3::tsquery
    AND ($5::jsonb IS NULL OR p.tags @> $5)
    AND ($6::text[] IS NULL OR p.tags ?| $6)
    AND ($7::float8 IS NULL OR p.created_at_ms >= $7)
    AND ($8::float8 IS NULL OR p.created_at_ms <= $8)
  ORDER BY ${score("p.terms")} DESC, p.seq LIMIT $4`;

/** Something that runs a query: the pool or a client. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export async function searchMessages(
  db: Queryable,
  agentId: string,
  terms: readonly string[],
  options: MessageSearch,
  limit: number,
): Promise<MessageHit[]> {
  const { roles, excludeRunId } = options;
  const params = [agentId, terms, anyOf(terms), roles ?? null, limit, excludeRunId ?? null];
  const { rows } = await db.query(SEARCH_MESSAGES, params);
  return rows.map(hitOf);
}

export async function searchPassages(
  db: Queryable,
  agentId: string,
  terms: readonly string[],
  options: PassageSearch,
  limit: number,
): Promise<Passage[]> {
  const { tags, anyTags, fromMs, toMs } = options;
  const params = [
    agentId,
    terms,
    anyOf(terms),
    limit,
    tags === undefined ? null : JSON.stringify(tags),
    anyTags ?? null,
    fromMs ?? null,
    toMs ?? null,
  ];
  const { rows } = await db.query(SEARCH_PASSAGES, params);
  return rows.map(passageOf);
}
