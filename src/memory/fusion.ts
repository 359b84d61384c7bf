/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each ranking gives an item
 * 1 / (k + rank), rank counted from 1, and items are ordered by the sum. It needs no score
 * calibration between BM25 and cosine distance, which live on unrelated scales, and an item
 * found by both rankings beats one found by either alone at the same ranks.
 */

/** The usual constant: large enough that the first few ranks do not dominate the sum. */
export const RRF_K = 60;

/**
 * Fuses rankings (best first) into one of at most `limit` items. Ties keep the order in which
 * items were first seen, the first ranking's first (full-text, by convention), so fusion is
 * deterministic. An item appearing twice in one ranking counts only at its best rank.
 *
 * @example reciprocalRankFusion([["a", "b"], ["b", "c"]], (x) => x, 3) // ["b", "a", "c"]
 */
export function reciprocalRankFusion<T>(
  rankings: readonly (readonly T[])[],
  keyOf: (item: T) => string,
  limit: number,
  k = RRF_K,
): T[] {
  const fused = new Map<string, { item: T; score: number; first: number }>();
  let seen = 0;
  for (const ranking of rankings) {
    const counted = new Set<string>();
    ranking.forEach((item, index) => {
      const key = keyOf(item);
      if (counted.has(key)) return;
      counted.add(key);
      const entry = fused.get(key) ?? { item, score: 0, first: seen++ };
      entry.score += 1 / (k + index + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, Math.max(0, Math.floor(limit)))
    .map((entry) => entry.item);
}
