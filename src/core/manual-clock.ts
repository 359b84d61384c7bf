import type { Clock } from "./clock.js";

interface Sleeper {
  wakeAtMs: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told: `advance` runs time forward and wakes every sleeper whose
 * time has come, in time order. Tests and simulations use it to make time deterministic.
 */
export class ManualClock implements Clock {
  #nowMs: number;
  #sleepers: Sleeper[] = [];

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = { wakeAtMs: this.#nowMs + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward by `ms`, waking sleepers due by then. */
  advance(ms: number): void {
    this.#nowMs += ms;
    const due = this.#sleepers
      .filter((s) => s.wakeAtMs <= this.#nowMs)
      .sort((a, b) => a.wakeAtMs - b.wakeAtMs);
    this.#sleepers = this.#sleepers.filter((s) => s.wakeAtMs > this.#nowMs);
    for (const sleeper of due) sleeper.resolve();
  }

  /** When the next sleeper wakes, or null if none waits. */
  nextWakeAtMs(): number | null {
    return this.#sleepers.reduce<number | null>(
      (soonest, s) => (soonest === null || s.wakeAtMs < soonest ? s.wakeAtMs : soonest),
      null,
    );
  }

  /** How many sleepers are waiting. */
  get sleeping(): number {
    return this.#sleepers.length;
  }
}
