import type { PageQuery } from "../store.js";

/** The largest `seq` a row can have: an open upper bound. */
const NO_UPPER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * The exclusive `seq` bounds of a page, or null when a cursor names no row of the list (an
 * unknown cursor yields an empty page) or the limit is below 1.
 */
export async function pageBounds(
  page: PageQuery,
  seqOf: (id: string) => Promise<number | null>,
): Promise<{ lower: number; upper: number; limit: number } | null> {
  const limit = Math.floor(page.limit);
  if (!(limit > 0)) return null;
  const after = page.after === undefined ? undefined : await seqOf(page.after);
  const before = page.before === undefined ? undefined : await seqOf(page.before);
  if (after === null || before === null) return null;
  return page.order === "asc"
    ? { lower: after ?? 0, upper: before ?? NO_UPPER_BOUND, limit }
    : { lower: before ?? 0, upper: after ?? NO_UPPER_BOUND, limit };
}
