import { createHash, randomUUID } from "node:crypto";

/** Makes ids like Letta's (`message-…`, `agent-…`). Injected so simulations get stable ids. */
export interface IdSource {
  next(prefix: string): string;
}

/**
 * The text as one flat string. `randomUUID` builds its text from some twenty pieces, and V8
 * keeps such a string as the chain of pieces (about 600 bytes) until something flattens it;
 * ids are kept by every activation, message and run in memory, so they are copied flat once.
 * Ids are ASCII, which latin1 copies exactly.
 */
const flat = (text: string) => Buffer.from(text, "latin1").toString("latin1");

export const randomIds: IdSource = { next: (prefix) => flat(`${prefix}-${randomUUID()}`) };

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

/**
 * An id that is a function of `parts`: the same parts always give the same id, so an effect
 * keyed by it (a sub-agent for one spawn call) is made once however often a step is retried.
 */
export function derivedId(prefix: string, ...parts: string[]): string {
  const hex = createHash("sha256").update(parts.join("\u0000")).digest("hex");
  return `${prefix}-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
