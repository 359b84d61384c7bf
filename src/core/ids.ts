import { randomUUID } from "node:crypto";

/** Makes ids like Letta's (`message-…`, `agent-…`). Injected so simulations get stable ids. */
export interface IdSource {
  next(prefix: string): string;
}

export const randomIds: IdSource = { next: (prefix) => `${prefix}-${randomUUID()}` };

/** Ids numbered from 1 per prefix: deterministic, for tests and simulations. */
export function sequentialIds(): IdSource {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}-${String(n).padStart(8, "0")}`;
    },
  };
}
