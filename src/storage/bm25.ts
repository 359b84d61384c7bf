/** Full-text ranking for archival passages and conversation search when no index does it. */

const TOKEN = /[\p{L}\p{N}]+/gu;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((token) => token.length > 1);
}

/**
 * Scores documents against a query with Okapi BM25 (k1 = 1.2, b = 0.75) and returns the
 * indices of those that match at least one term, best first; ties keep document order.
 */
export function rankBm25(query: string, documents: readonly string[], limit: number): number[] {
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
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.index);
}
