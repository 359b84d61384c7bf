import type { DatabaseSync } from "node:sqlite";
import type { MessageHit, Passage } from "../../records/memory-records.js";
import { SEARCH_CANDIDATES, tokenize } from "../bm25.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { hitOf, passageOf } from "./rows.js";
import type { Statements } from "./statements.js";

/**
 * Full-text terms partitioned by agent. Each word of a row is indexed as one FTS5 term made of
 * its agent's key and the word (`a17xlighthouse`), so every posting list holds one agent's rows
 * only. A search reads its agent's lists and nothing else: BM25's document frequencies, which
 * FTS5 counts by walking each queried term's whole list, come from that agent's rows, as the
 * in-memory store ranks them; and neither other agents' rows nor the size of the store adds to
 * its cost (see docs/decisions/010-full-text-per-agent.md). Words are `tokenize`'s, the same
 * on both sides, so the query matches exactly what was indexed.
 */

/** `ownedTerms` as SQL knows it: the migration that introduced these terms reindexes with it. */
export const OWNED_TERMS_FUNCTION = "holdfast_owned_terms";

/** The agent's marker before each word; the `x` ends the key, so no two agents' terms meet. */
function prefix(agentKey: number): string {
  return `a${agentKey}x`;
}

/** What the index holds for one row of an agent: its words, each marked with the agent. */
export function ownedTerms(agentKey: number, text: string): string {
  const mark = prefix(agentKey);
  return tokenize(text)
    .map((word) => mark + word)
    .join(" ");
}

/**
 * An FTS5 MATCH expression from user text, within one agent's rows: each word quoted as a
 * phrase and ORed, so no user text is ever read as query syntax. Null when the text has no
 * words to look for.
 */
export function ownedMatch(agentKey: number, query: string): string | null {
  const mark = prefix(agentKey);
  const words = [...new Set(tokenize(query))];
  if (words.length === 0) return null;
  return words.map((word) => `"${(mark + word).replaceAll('"', '""')}"`).join(" OR ");
}

/** Makes `ownedTerms` callable from SQL on this connection, for the migration that reindexes. */
export function registerOwnedTerms(db: DatabaseSync): void {
  db.function(OWNED_TERMS_FUNCTION, { deterministic: true }, (agentKey, text) => {
    if (typeof text !== "string") return "";
    return ownedTerms(Number(agentKey), text);
  });
}

/** Conversation search of one agent's messages, given `ownedMatch`'s expression. */
export function searchMessages(
  sql: Statements,
  match: string | null,
  options: MessageSearch,
): MessageHit[] {
  const limit = Math.floor(options.limit);
  if (match === null || !(limit > 0)) return [];
  const roles = options.roles === undefined ? null : JSON.stringify(options.roles);
  const exclude = options.excludeRunId ?? null;
  return sql.searchMessages.all(match, roles, limit, exclude, SEARCH_CANDIDATES).map(hitOf);
}

/** Archival search of one agent's passages, given `ownedMatch`'s expression. */
export function searchPassages(
  sql: Statements,
  match: string | null,
  options: PassageSearch,
): Passage[] {
  const limit = Math.floor(options.topK);
  if (match === null || !(limit > 0)) return [];
  const { tags, anyTags, fromMs, toMs } = options;
  const json = (list?: readonly string[]) => (list === undefined ? null : JSON.stringify(list));
  const filters = [json(anyTags), fromMs ?? null, toMs ?? null];
  const ranked = SEARCH_CANDIDATES;
  return sql.searchPassages.all(match, json(tags), limit, ...filters, ranked).map(passageOf);
}
