import { AsyncLocalStorage } from "node:async_hooks";
import { RetryableError } from "../../core/errors.js";
import type { Store } from "../../storage/store.js";

/**
 * Fencing for a worker's writes. When Restate loses a worker's attempt of a handler (the
 * connection dropped: Restate restarted, say), it retries the handler elsewhere, while the
 * first attempt may still be running here (a tool call in flight). That attempt must never
 * write again: each handler runs in its attempt's context, and a write from an attempt that
 * has ended is refused, so the retry is the only writer.
 */
const attempt = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` as part of the attempt `signal` belongs to (aborted when the attempt ends). */
export function inAttempt<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return attempt.run(signal, work);
}

/** A write from an attempt Restate no longer waits for. */
export class AttemptEndedError extends RetryableError {
  override readonly code = "ATTEMPT_ENDED";
}

const WRITES = new Set([
  "commit",
  "createAgent",
  "updateAgent",
  "deleteAgent",
  "putBlock",
  "deleteBlock",
  "insertPassages",
  "deletePassage",
  "putRun",
  "putTimer",
  "clearTimer",
  "putChainRun",
]);

/** The store, refusing writes from an attempt that has ended. */
export function fencedStore(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== "string" || !WRITES.has(property)) return method.bind(target);
      return (...args: unknown[]) => {
        if (attempt.getStore()?.aborted) {
          return Promise.reject(
            new AttemptEndedError(`${property} refused: this attempt of the handler ended`, 0),
          );
        }
        return method.apply(target, args);
      };
    },
  });
}
