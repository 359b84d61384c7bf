import { letOthersRun } from "../core/let-others-run.js";

/** The most rows one read of a shown page takes when some rows show as nothing. */
const MAX_READ = 1_000;

/**
 * A page of what the API shows, `limit` long when there is that much: Letta's `limit` counts
 * the messages a page returns, but a stored row may show as none (a `send_message` return, a
 * type the request leaves out). So rows are read on past the first `limit`, from the last one
 * read (`after`, relative to the page's order), until the page is full or the rows run out.
 */
export async function shownPage<Row, View>(
  read: (after: string | undefined, limit: number) => Promise<Row[]>,
  firstAfter: string | undefined,
  limit: number,
  show: (rows: readonly Row[]) => View[],
  idOf: (row: Row) => string = (row) => (row as { id: string }).id,
): Promise<View[]> {
  const shown: View[] = [];
  let after = firstAfter;
  let size = limit;
  for (;;) {
    const rows = await read(after, size);
    shown.push(...show(rows));
    if (shown.length >= limit || rows.length < size) return shown.slice(0, limit);
    const last = rows.at(-1);
    after = last === undefined ? after : idOf(last);
    // Few rows showed: read more at a time, and let other requests in between reads.
    size = Math.min(Math.max(size * 2, 50), MAX_READ);
    await letOthersRun();
  }
}
