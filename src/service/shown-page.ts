import { letOthersRun } from "../core/let-others-run.js";
import type { PageQuery } from "../storage/store.js";

/** The most rows one read of a shown page takes when some rows show as nothing. */
const MAX_READ = 1_000;

/**
 * A page of messages as Letta's list routes show it, `limit` long when there is that much.
 * Letta's cursors mean newer (`after`) and older (`before`) whatever the `order`, which picks
 * the end the page is taken from; a `desc` page is still shown oldest first. The store's
 * cursors are relative to the order, so for `desc` they swap here. Letta's `limit` counts the
 * messages a page returns, but a stored row may show as none (a `send_message` return, a type
 * the request leaves out): rows are read on past the first `limit`, from the last one read,
 * until the page is full or the rows run out.
 */
export async function shownPage<Row, View>(
  query: PageQuery,
  read: (page: PageQuery) => Promise<Row[]>,
  show: (rows: readonly Row[]) => View[],
  idOf: (row: Row) => string = (row) => (row as { id: string }).id,
): Promise<View[]> {
  const { after, before, limit, order } = query;
  const cursors = order === "asc" ? { after, before } : { after: before, before: after };
  const shown: View[] = [];
  let from = cursors.after;
  let size = limit;
  for (;;) {
    const rows = await read({ ...cursors, after: from, limit: size, order });
    shown.push(...show(rows));
    const last = rows.at(-1);
    if (shown.length >= limit || rows.length < size || last === undefined) break;
    from = idOf(last);
    // Few rows showed: read more at a time, and let other requests in between reads.
    size = Math.min(Math.max(size * 2, 50), MAX_READ);
    await letOthersRun();
  }
  const page = shown.slice(0, limit);
  return order === "desc" ? page.reverse() : page;
}
