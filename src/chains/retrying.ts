import type { Clock } from "../core/clock.js";
import { HoldfastError } from "../core/errors.js";

const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 10_000;
const ATTEMPTS = 8;

/**
 * Runs `work` until it succeeds, waiting longer after each transient failure (a busy agent, a
 * store that failed to write). Errors that say retrying cannot help (bad input, not found)
 * and the last failure are thrown, as is the failure in hand when `signal` aborts.
 */
export async function retrying<T>(
  clock: Clock,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const terminal = error instanceof HoldfastError && !error.retryable;
      if (terminal || attempt >= ATTEMPTS || signal?.aborted) throw error;
      await clock.sleep(Math.min(FIRST_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS), signal);
    }
  }
}
