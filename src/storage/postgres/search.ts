import type { MessageHit, Passage } from "../../records/memory-records.js";
import { SEARCH_CANDIDATES } from "../bm25.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { anyOf } from "./full-text.js";
import { hitOf, passageOf, type Row } from "./rows.js";

/**
 * Ranked full-text search over one agent's rows. `ts_rank` scores how well a row matches each
 * query word (normalised by the row's length); each word's score is weighted by how rare the
 * word is among the agent's own rows (BM25's inverse document frequency: the word's count among
 * the agent's rows through the GIN index on the agent's terms, over the table's row estimate), so a rare word outranks a common one, as SQLite's BM25 and
 * the in-memory store rank. Ties keep creation order. Only the newest `SEARCH_CANDIDATES`
 * matches that pass the filters are scored and sorted (`storage/bm25.ts`), and each word's
 * matches are counted up to that many, once per search: the weights are MATERIALIZED, since a CTE used once is otherwise inlined into the score, which
 * PostgreSQL then recomputes for every row it ranks (a count per row: quadratic in the
 * matches, minutes for a word in 10k of an agent's rows).
 */
export function weighted(table: string, column: string, terms: number): string {
  // A word's count stops at SEARCH_CANDIDATES: past it, a word is as common as can matter, and
  // counting on would be linear in the agent's rows. Each word by its index in $2, so that PostgreSQL plans its count with the word as a
  // constant (a custom plan folds the expression) and reads the GIN index for a rare word,
  // where a word from a lateral unnest is unknown to the planner and the count scans the table.
  const words = Array.from({ length: terms }, (_, k) => {
    const q = `quote_literal(($2::text[])[${k + 1}])::tsquery`;
    const matches = `SELECT 1 FROM ${table} WHERE ${column} @@ ${q} LIMIT ${SEARCH_CANDIDATES}`;
    return `(${q}, (SELECT count(*)::float8 FROM (${matches}) AS found))`;
  });
  // The row count is the table's, as PostgreSQL last estimated it (FTS5's BM25 on SQLite also
  // counts the whole table's rows): counting the agent's rows would be linear in them. Before
  // any estimate (-1), or below a word's count, the largest count stands in.
  return `weights AS MATERIALIZED (
    SELECT w.q, ln(1 + (w.n - w.df + 0.5) / (w.df + 0.5)) AS idf
    FROM (SELECT v.q, v.df, greatest(max(v.df) OVER (), 1, (SELECT reltuples FROM pg_class
        WHERE oid = '${table}'::regclass))::float8 AS n
      FROM (VALUES ${words.join(", ")}) AS v (q, df)) AS w
  )`;
}

export function score(column: string): string {
  return `(SELECT sum(w.idf * ts_rank(${column}, w.q, 1)) FROM weights AS w)`;
}

// Only the newest SEARCH_CANDIDATES matches that pass the filters ($7 / $9) are scored. The
// agent's id lets PostgreSQL walk the agent's rows newest first for a common word (stopping at
// the cap) where the GIN index would fetch every match; a rare word still reads the index.
const searchMessagesSql = (terms: number) => `WITH ${weighted("messages", "search_terms", terms)},
  candidates AS (
    SELECT m.seq, m.id, m.search_role, m.search_text, m.created_at, m.search_terms
    FROM messages AS m
    WHERE m.agent_id = $1 AND m.search_terms @@ $3::tsquery AND ($4::text[] IS NULL OR m.search_role = ANY ($4))
      AND ($6::text IS NULL OR m.run_id IS DISTINCT FROM $6)
    ORDER BY m.seq DESC LIMIT $7)
  SELECT m.id, m.search_role AS role, m.search_text AS text, m.created_at
  FROM candidates AS m
  ORDER BY ${score("m.search_terms")} DESC, m.seq LIMIT $5`;

// $5: tags a passage must all have (JSONB array); $6: tags it must have one of; $7, $8: the
// creation time range, both ends included. NULL means no such filter.
const searchPassagesSql = (terms: number) => `WITH ${weighted("passages", "terms", terms)},
  candidates AS (
    SELECT p.seq, p.id, p.text, p.tags, p.created_at_ms, p.terms
    FROM passages AS p
    WHERE p.agent_id = $1 AND p.terms @@ $3::tsquery
      AND ($5::jsonb IS NULL OR p.tags @> $5)
      AND ($6::text[] IS NULL OR p.tags ?| $6)
      AND ($7::float8 IS NULL OR p.created_at_ms >= $7)
      AND ($8::float8 IS NULL OR p.created_at_ms <= $8)
    ORDER BY p.seq DESC LIMIT $9)
  SELECT p.id, p.text, p.tags, p.created_at_ms
  FROM candidates AS p
  ORDER BY ${score("p.terms")} DESC, p.seq LIMIT $4`;

/** A passage search's filters as the SQL's parameters $5 to $8 take them (NULL: none). */
export function passageFilters({ tags, anyTags, fromMs, toMs }: PassageSearch): unknown[] {
  const allTags = tags === undefined ? null : JSON.stringify(tags);
  return [allTags, anyTags ?? null, fromMs ?? null, toMs ?? null];
}

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
  const exclude = excludeRunId ?? null;
  const params = [agentId, terms, anyOf(terms), roles ?? null, limit, exclude, SEARCH_CANDIDATES];
  const { rows } = await db.query(searchMessagesSql(terms.length), params);
  return rows.map(hitOf);
}

export async function searchPassages(
  db: Queryable,
  agentId: string,
  terms: readonly string[],
  options: PassageSearch,
  limit: number,
): Promise<Passage[]> {
  const params = [
    agentId,
    terms,
    anyOf(terms),
    limit,
    ...passageFilters(options),
    SEARCH_CANDIDATES,
  ];
  const { rows } = await db.query(searchPassagesSql(terms.length), params);
  return rows.map(passageOf);
}
