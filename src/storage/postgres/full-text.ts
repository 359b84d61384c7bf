import { tokenize } from "../bm25.js";

/**
 * Full-text terms partitioned by agent, as `tsvector`s built here rather than by a text search
 * configuration: each word (`tokenize`'s, the same as SQLite and the in-memory store) becomes
 * the lexeme `a<agent seq>x<word>` with its positions. A GIN posting list then holds one
 * agent's rows, so a search reads only its agent's postings (decision 010), and no parser,
 * dictionary or locale of the server changes what matches.
 *
 * Both sides are literals (`'…'::tsvector`, `'…'::tsquery`); words are letters and digits
 * only, so nothing in user text is ever read as query syntax.
 */

/** PostgreSQL's limits: a lexeme's bytes, positions kept per lexeme, the largest position. */
const MAX_LEXEME_BYTES = 2_046;
const MAX_POSITIONS = 256;
const MAX_POSITION = 16_383;
/** A tsvector's lexemes may total at most 1 MB; a huge row keeps its first words. */
const MAX_TOTAL_BYTES = 1_000_000;

function prefix(agentKey: number): string {
  return `a${agentKey}x`;
}

/** The `tsvector` literal for one row of an agent; empty text gives an empty vector. */
export function ownedVector(agentKey: number, text: string): string {
  return vectorWith(prefix(agentKey), text);
}

/**
 * Where `ownedVector`'s lexemes begin, for SQL that knows the agent's key and this code does
 * not: `replace(template, AGENT_MARK, 'a' || seq || 'x')` gives `ownedVector(seq, text)`.
 * Words are letters and digits, so the mark appears nowhere else.
 */
export const AGENT_MARK = "@";

export function ownedVectorTemplate(text: string): string {
  return vectorWith(AGENT_MARK, text);
}

/** Room kept in a lexeme for an agent's key (`a` + up to 20 digits + `x`). */
const KEY_ROOM = 22;

function vectorWith(mark: string, text: string): string {
  const positions = new Map<string, number[]>();
  let bytes = 0;
  tokenize(text).forEach((word, index) => {
    const lexeme = mark + word;
    let list = positions.get(lexeme);
    if (list === undefined) {
      const size = Buffer.byteLength(word) + KEY_ROOM;
      if (size > MAX_LEXEME_BYTES || bytes + size > MAX_TOTAL_BYTES) return;
      bytes += size;
      list = [];
      positions.set(lexeme, list);
    }
    if (list.length < MAX_POSITIONS) list.push(Math.min(index + 1, MAX_POSITION));
  });
  return [...positions]
    .map(([lexeme, at]) => `'${lexeme}':${[...new Set(at)].join(",")}`)
    .join(" ");
}

/** The agent's lexemes for the words of a query (distinct, in order); empty if it has none. */
export function ownedQueryTerms(agentKey: number, query: string): string[] {
  const mark = prefix(agentKey);
  return [...new Set(tokenize(query))]
    .map((word) => mark + word)
    .filter((lexeme) => Buffer.byteLength(lexeme) <= MAX_LEXEME_BYTES);
}

/** A `tsquery` literal matching any of the terms. */
export function anyOf(terms: readonly string[]): string {
  return terms.map((term) => `'${term}'`).join(" | ");
}
