import type { Clock } from "./clock.js";

/** How often a loop looks again when nothing is nearer. */
export const IDLE_POLL_MS = 60_000;
/** How soon a loop looks again after its work failed. */
export const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * A loop that does its work, then sleeps for as long as the work says (until the soonest thing
 * it waits for), and is woken early by `wake`. A failed round (a busy or unreachable store)
 * never ends the loop: nothing is lost when its work is stored, so it looks again a little
 * later. Durable timers and scheduled messages both run on one.
 */
export class WakeLoop {
  #running = false;
  #sleep: AbortController | null = null;

  /** `round` does the due work and returns how long to sleep, in ms. */
  constructor(
    private readonly clock: Clock,
    private readonly round: () => Promise<number>,
  ) {}

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#loop();
  }

  stop(): void {
    this.#running = false;
    this.#sleep?.abort();
  }

  /** Something may now be due sooner than the loop sleeps for: look again now. */
  wake(): void {
    this.#sleep?.abort();
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      let waitMs = IDLE_POLL_MS;
      try {
        waitMs = await this.round();
      } catch {
        waitMs = RETRY_AFTER_FAILURE_MS;
      }
      this.#sleep = new AbortController();
      await this.clock.sleep(waitMs, this.#sleep.signal).catch(() => undefined);
    }
  }
}
