/**
 * Resolves after the event loop has served what is waiting (I/O, timers, other requests). A
 * loop over pages of a synchronous store (SQLite) never yields at its `await`s, so one long
 * read would hold every other agent and request until it ends; awaiting this between pages
 * lets them in.
 */
export function letOthersRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
