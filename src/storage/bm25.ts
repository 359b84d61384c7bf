/** Full-text ranking for archival passages and conversation search when no index does it. */

/**
 * The most rows one full-text search ranks: the newest of the agent's rows that match the query
 * and pass its filters. Every store ranks these alone, so a word in most of an agent's rows
 * costs a bounded amount of scoring and sorting, not one score per row; a better match older
 * than the newest 1,000 matches is not found by that query (a rarer word or a filter finds it).
 */
export const SEARCH_CANDIDATES = 1_000;

const TOKEN = /[\p{L}\p{N}]+/gu;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((token) => token.length > 1);
}

/**
 * Scores documents against a query with Okapi BM25 (k1 = 1.2, b = 0.75) and returns the
 * indices of those that match at least one term, best first; ties keep document order. With
 * `candidates`, only that many of the matching documents are ranked: the last ones (the
 * newest, documents being oldest first), as the stores rank `SEARCH_CANDIDATES`.
 */
export function rankBm25(
  query: string,
  documents: readonly string[],
  limit: number,
  candidates = Number.POSITIVE_INFINITY,
): number[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || documents.length === 0) return [];
  const docs = documents.map(tokenize);
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length || 1;
  const idf = new Map(
    terms.map((term) => {
      const n = docs.filter((doc) => doc.includes(term)).length;
      return [term, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))];
    }),
  );
  const scored = docs.map((doc, index) => {
    let score = 0;
    for (const term of terms) {
      const tf = doc.filter((token) => token === term).length;
      if (tf === 0) continue;
      score +=
        ((idf.get(term) ?? 0) * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / avgLength));
    }
    return { index, score };
  });
  const matched = scored.filter((entry) => entry.score > 0);
  return matched
    .slice(Math.max(0, matched.length - candidates))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.index);
}
