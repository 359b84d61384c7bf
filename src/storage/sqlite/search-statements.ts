/**
 * Full-text searches of one agent's rows (`full-text.ts` makes the MATCH expression of the
 * agent's own terms). A search ranks at most `SEARCH_CANDIDATES` rows (`storage/bm25.ts`): the
 * newest that match and pass the filters. The `matched` CTE walks the matches newest first
 * (FTS5 reads a posting list in rowid order) and stops there, and the ranked query reads only
 * rowids from the oldest of them on, so BM25 scores and sorts a bounded set however many of
 * the agent's rows hold a common word. BM25's document frequencies still count each word's
 * whole posting list (FTS5 does that once per query): linear in the agent's rows holding the
 * word, at a fraction of the cost of scoring them.
 */

// ?1: the MATCH expression; ?2: roles (a JSON array) or NULL; ?3: the limit; ?4: a run whose
// messages are left out, or NULL; ?5: how many candidates are ranked at most.
const MESSAGE_FILTERS = `(?2 IS NULL OR m.search_role IN (SELECT value FROM json_each(?2)))
      AND (?4 IS NULL OR json_extract(m.body, '$.run_id') IS NOT ?4)`;

export const SEARCH_MESSAGES = `WITH matched AS (
    SELECT messages_fts.rowid AS seq FROM messages_fts JOIN messages AS m ON m.seq = messages_fts.rowid
    WHERE messages_fts MATCH ?1 AND ${MESSAGE_FILTERS}
    ORDER BY messages_fts.rowid DESC LIMIT ?5)
  SELECT m.id, m.search_role AS role, m.search_text AS text, m.created_at
    FROM messages_fts JOIN messages AS m ON m.seq = messages_fts.rowid
    WHERE messages_fts MATCH ?1 AND messages_fts.rowid >= (SELECT coalesce(min(seq), 0) FROM matched)
      AND ${MESSAGE_FILTERS}
    ORDER BY bm25(messages_fts), m.seq LIMIT ?3`;

// ?2: tags a passage must all have; ?4: tags it must have one of; ?5, ?6: creation time
// range, both ends included; NULL means no such filter. ?7: how many candidates are ranked.
export const PASSAGE_FILTERS = `NOT EXISTS (
        SELECT 1 FROM json_each(?2) AS wanted
        WHERE wanted.value NOT IN (SELECT value FROM json_each(p.tags))
      )
      AND (?4 IS NULL OR EXISTS (
        SELECT 1 FROM json_each(p.tags) AS tag WHERE tag.value IN (SELECT value FROM json_each(?4))
      ))
      AND (?5 IS NULL OR p.created_at_ms >= ?5) AND (?6 IS NULL OR p.created_at_ms <= ?6)`;

export const SEARCH_PASSAGES = `WITH matched AS (
    SELECT passages_fts.rowid AS seq FROM passages_fts JOIN passages AS p ON p.seq = passages_fts.rowid
    WHERE passages_fts MATCH ?1 AND ${PASSAGE_FILTERS}
    ORDER BY passages_fts.rowid DESC LIMIT ?7)
  SELECT p.id, p.text, p.tags, p.created_at_ms
    FROM passages_fts JOIN passages AS p ON p.seq = passages_fts.rowid
    WHERE passages_fts MATCH ?1 AND passages_fts.rowid >= (SELECT coalesce(min(seq), 0) FROM matched)
      AND ${PASSAGE_FILTERS}
    ORDER BY bm25(passages_fts), p.seq LIMIT ?3`;
