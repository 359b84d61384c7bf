import { HoldfastError, RetryableError } from "../core/errors.js";
import type { Store } from "../storage/store.js";
import type { StepCommit } from "../storage/turn-store.js";
import type { FaultInjector } from "./fault-plan.js";

/** The process "died": everything of this generation stops at its next store access. */
export class CrashedError extends HoldfastError {
  readonly code = "CRASHED";
  readonly retryable = false;
}

const WRITES = new Set([
  "createAgent",
  "updateAgent",
  "deleteAgent",
  "putBlock",
  "detachBlock",
  "insertPassages",
  "deletePassage",
  "commit",
  "putRun",
  "putTimer",
  "clearTimer",
  "putChainRun",
]);

export interface FaultyStoreHooks {
  /** A commit reached the disk (before any crash-after-write fault). */
  committed(step: StepCommit): void;
  /** A crash-after-write fault fired: the world must crash. */
  crash(): void;
}

/**
 * One process generation's view of the simulated disk. It injects read and write failures
 * before the call, and crashes right after a commit; once its generation is dead, every call
 * fails, so work still in flight from a "dead process" can change nothing.
 */
export function faultyStore(
  disk: Store,
  faults: FaultInjector,
  hooks: FaultyStoreHooks,
): { store: Store; kill(): void } {
  let dead = false;
  const guard = <T>(name: string, call: () => Promise<T>): Promise<T> => {
    if (dead) return Promise.reject(new CrashedError(`process is dead (${name})`));
    const write = WRITES.has(name);
    if (faults.fires(write ? "storage_write" : "storage_read", name)) {
      return Promise.reject(
        new RetryableError(`simulated storage ${write ? "write" : "read"} failure in ${name}`, 100),
      );
    }
    return call();
  };
  const store = new Proxy(disk, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      if (property === "close") return () => Promise.resolve();
      if (property === "commit") {
        return (step: StepCommit) =>
          guard("commit", async () => {
            await target.commit(step);
            if (dead) throw new CrashedError("process died during commit");
            hooks.committed(step);
            if (faults.fires("crash_after_write", "commit")) {
              dead = true;
              hooks.crash();
              throw new CrashedError("simulated crash after a commit");
            }
          });
      }
      return (...args: unknown[]) => guard(property, () => value.apply(target, args));
    },
  }) as Store;
  return {
    store,
    kill: () => {
      dead = true;
    },
  };
}
