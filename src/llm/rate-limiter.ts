import type { Clock } from "../core/clock.js";
import { assert } from "../core/errors.js";

/**
 * What one provider allows, per server: requests at once, requests and tokens per minute.
 * Absent means unlimited. `concurrent` is also the ceiling the adaptive limit climbs back to
 * after a 429.
 */
export interface ProviderLimits {
  concurrent?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** A granted model call; `release` it exactly once, saying how the call went. */
export interface Grant {
  /** How long the call waited in the queue, by the limiter's clock. */
  readonly waitedMs: number;
  /** Calls granted to other callers while this one waited: the wait in logical terms. */
  readonly waitedGrants: number;
  release(outcome: ReleaseOutcome): void;
}

export interface ReleaseOutcome {
  /** The provider answered 429: the limit shrinks, and a `retry-after` pauses every caller. */
  rateLimited?: { retryAfterMs?: number };
  /** The tokens the call really used, which replace the estimate in the per-minute window. */
  tokens?: number;
}

/** What the limiter is doing now, for logs, metrics and tests. */
export interface LimiterSnapshot {
  inFlight: number;
  queued: number;
  /** The adaptive concurrency limit (`Infinity` while nothing has ever been limited). */
  limit: number;
  pausedUntilMs: number;
}

interface Waiter {
  key: string;
  tokens: number;
  enqueuedAtMs: number;
  grantsAtEnqueue: number;
  resolve: (grant: Grant) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

const MINUTE_MS = 60_000;

/**
 * A fair queue in front of one provider, shared by every agent of the server. Callers are
 * served round-robin by key (the agent id), so an agent with many calls waiting cannot starve
 * one with a single call. Concurrency adapts AIMD-style: a 429 halves the limit (once per
 * burst) and pauses grants for the provider's `retry-after`; each success adds `1/limit`, back
 * up to the configured `concurrent`. All waiting goes through the injected clock.
 */
export class RateLimiter {
  readonly #limits: ProviderLimits;
  readonly #clock: Clock;
  readonly #queues = new Map<string, Waiter[]>();
  #ring: string[] = [];
  #cursor = 0;
  #inFlight = 0;
  #limit: number;
  #epoch = 0;
  #grants = 0;
  #pausedUntilMs = 0;
  #window: { atMs: number; tokens: number }[] = [];
  #timer: { dueMs: number; abort: AbortController } | undefined;

  constructor(limits: ProviderLimits, clock: Clock) {
    for (const value of Object.values(limits)) {
      assert(value === undefined || (Number.isInteger(value) && value >= 1), "limits are >= 1");
    }
    this.#limits = limits;
    this.#clock = clock;
    this.#limit = limits.concurrent ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Waits for a turn for `key` with a call estimated at `tokens`. Rejects with the signal's
   * reason if it aborts while queued (the caller leaves the queue).
   */
  acquire(key: string, tokens: number, signal?: AbortSignal): Promise<Grant> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Grant>((resolve, reject) => {
      const onAbort = () => {
        this.#remove(waiter);
        reject(signal?.reason);
        this.#pump();
      };
      const waiter: Waiter = {
        key,
        tokens,
        enqueuedAtMs: this.#clock.now(),
        grantsAtEnqueue: this.#grants,
        resolve,
        reject,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const queue = this.#queues.get(key);
      if (queue) queue.push(waiter);
      else {
        this.#queues.set(key, [waiter]);
        this.#ring.push(key);
      }
      this.#pump();
    });
  }

  snapshot(): LimiterSnapshot {
    let queued = 0;
    for (const queue of this.#queues.values()) queued += queue.length;
    return {
      inFlight: this.#inFlight,
      queued,
      limit: this.#limit,
      pausedUntilMs: this.#pausedUntilMs,
    };
  }

  #remove(waiter: Waiter): void {
    const queue = this.#queues.get(waiter.key);
    if (!queue) return;
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) this.#dropKey(waiter.key);
  }

  #dropKey(key: string): void {
    this.#queues.delete(key);
    const at = this.#ring.indexOf(key);
    this.#ring.splice(at, 1);
    if (at < this.#cursor) this.#cursor -= 1;
    if (this.#cursor >= this.#ring.length) this.#cursor = 0;
  }

  /** Grants calls, in round-robin order, while limits allow; else waits for a release or time. */
  #pump(): void {
    while (this.#ring.length > 0) {
      const key = this.#ring[this.#cursor];
      assert(key !== undefined, "the cursor points into the ring");
      const queue = this.#queues.get(key);
      const waiter = queue?.[0];
      assert(queue !== undefined && waiter !== undefined, "a key in the ring has waiters");
      if (this.#inFlight >= Math.max(1, Math.floor(this.#limit))) return;
      const waitMs = this.#timeUntilAllowed(waiter.tokens);
      if (waitMs > 0) {
        this.#wakeIn(waitMs);
        return;
      }
      queue.shift();
      if (queue.length === 0) this.#dropKey(key);
      else this.#cursor = (this.#cursor + 1) % this.#ring.length;
      this.#grant(waiter);
    }
  }

  #timeUntilAllowed(tokens: number): number {
    const nowMs = this.#clock.now();
    this.#window = this.#window.filter((entry) => entry.atMs + MINUTE_MS > nowMs);
    let waitMs = Math.max(0, this.#pausedUntilMs - nowMs);
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = this.#limits;
    const oldest = this.#window[0];
    if (rpm !== undefined && oldest && this.#window.length >= rpm) {
      waitMs = Math.max(waitMs, oldest.atMs + MINUTE_MS - nowMs);
    }
    if (tpm !== undefined && oldest) {
      let used = this.#window.reduce((sum, entry) => sum + entry.tokens, 0);
      // A call larger than the whole budget still goes, alone, once the window is empty.
      for (const entry of this.#window) {
        if (used + tokens <= tpm) break;
        used -= entry.tokens;
        waitMs = Math.max(waitMs, entry.atMs + MINUTE_MS - nowMs);
      }
    }
    return waitMs;
  }

  #wakeIn(ms: number): void {
    const dueMs = this.#clock.now() + ms;
    if (this.#timer && this.#timer.dueMs <= dueMs) return;
    this.#timer?.abort.abort();
    const abort = new AbortController();
    this.#timer = { dueMs, abort };
    this.#clock.sleep(ms, abort.signal).then(
      () => {
        if (this.#timer?.abort === abort) this.#timer = undefined;
        this.#pump();
      },
      () => {},
    );
  }

  #grant(waiter: Waiter): void {
    waiter.detach();
    const nowMs = this.#clock.now();
    const entry = { atMs: nowMs, tokens: waiter.tokens };
    this.#window.push(entry);
    this.#inFlight += 1;
    const epoch = this.#epoch;
    const waitedGrants = this.#grants - waiter.grantsAtEnqueue;
    this.#grants += 1;
    let released = false;
    waiter.resolve({
      waitedMs: nowMs - waiter.enqueuedAtMs,
      waitedGrants,
      release: (outcome) => {
        assert(!released, "a grant is released once");
        released = true;
        this.#release(outcome, epoch, entry);
      },
    });
  }

  #release(outcome: ReleaseOutcome, epoch: number, entry: { tokens: number }): void {
    const inFlightBefore = this.#inFlight;
    this.#inFlight -= 1;
    if (outcome.tokens !== undefined) entry.tokens = outcome.tokens;
    const ceiling = this.#limits.concurrent ?? Number.POSITIVE_INFINITY;
    if (outcome.rateLimited) {
      // One burst of 429s from calls granted under the same limit halves it only once.
      if (epoch === this.#epoch) {
        this.#limit = Math.max(1, Math.floor(Math.min(this.#limit, inFlightBefore) / 2));
        this.#epoch += 1;
      }
      const retryAfterMs = outcome.rateLimited.retryAfterMs ?? 0;
      this.#pausedUntilMs = Math.max(this.#pausedUntilMs, this.#clock.now() + retryAfterMs);
    } else if (this.#limit < ceiling) {
      this.#limit = Math.min(ceiling, this.#limit + 1 / this.#limit);
    }
    this.#pump();
  }
}
