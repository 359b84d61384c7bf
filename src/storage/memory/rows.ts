import type { TimerRecord } from "../../records/agent-record.js";
import type { PageQuery } from "../store.js";

/** Helpers of the in-memory store: its lists' paging, keys, orders and copies. */

/**
 * A page of `items` (kept in creation order) by Letta's rules; an unknown cursor gives []. `keep`
 * filters the page, not the cursors: they are places in `items`, as SQLite's are rows' `seq`.
 */
export function pageOf<T extends { id: string }>(
  items: readonly T[],
  page: PageQuery,
  keep: (item: T) => boolean = () => true,
): T[] {
  const limit = Math.floor(page.limit);
  if (!(limit > 0)) return [];
  const ordered = page.order === "asc" ? items : [...items].reverse();
  const indexOf = (id: string | undefined, missing: number): number | null => {
    if (id === undefined) return missing;
    const index = ordered.findIndex((item) => item.id === id);
    return index < 0 ? null : index;
  };
  const after = indexOf(page.after, -1);
  const before = indexOf(page.before, ordered.length);
  if (after === null || before === null) return [];
  return ordered
    .slice(after + 1, Math.max(after + 1, before))
    .filter(keep)
    .slice(0, limit);
}

/** A key for maps keyed by an agent and one of its names (a timer kind, an idempotency key). */
export function pairKey(agentId: string, name: string): string {
  return `${agentId}\u0000${name}`;
}

/** Soonest first, then by agent and kind: the order `dueTimers` promises. */
export function byDueTime(a: TimerRecord, b: TimerRecord): number {
  return (
    a.due_at_ms - b.due_at_ms ||
    (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0) ||
    (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0)
  );
}

/** A deep copy; one parameter, so that it is safe to pass to `map`. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
