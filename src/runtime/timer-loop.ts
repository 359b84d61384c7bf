import type { Clock } from "../core/clock.js";
import type { TimerRecord } from "../records/agent-record.js";
import { type SessionState, wakeUpsOf } from "../records/session-state.js";
import type { Store } from "../storage/store.js";

/** How often the loop looks for due timers when none is nearer; a new timer also wakes it. */
const IDLE_POLL_MS = 60_000;
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * Durable timers: a paused session's wake-up and an approval's expiry are stored with the
 * session's checkpoint, so they fire after a restart too. The loop sleeps until the soonest.
 */
export class TimerLoop {
  #running = false;
  #sleep: AbortController | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly fire: (timer: TimerRecord) => Promise<unknown>,
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

  /**
   * A session changed: if it now waits for a time, look again. (Its timers were written with
   * its checkpoint, in the same transaction; the loop only needs to know it may wake sooner.)
   */
  notice(state: SessionState): void {
    const { wake, approval_expiry } = wakeUpsOf(state);
    if (wake !== null || approval_expiry !== null) this.#sleep?.abort();
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      let waitMs = IDLE_POLL_MS;
      try {
        waitMs = await this.#fireDue();
      } catch {
        // The store failed (busy, unreachable): nothing is lost, timers stay stored. Look again
        // a little later instead of letting a rejected loop take the server down.
        waitMs = RETRY_AFTER_FAILURE_MS;
      }
      this.#sleep = new AbortController();
      await this.clock.sleep(waitMs, this.#sleep.signal).catch(() => undefined);
    }
  }

  /**
   * Fires every due timer at once (the dispatcher still runs each agent's work in order) and
   * returns how long to sleep. A timer is not cleared here: the wake-up's own run sets or
   * clears the agent's timers to match its session, so a wake-up that fails leaves its timer
   * in place, to fire again after a pause.
   */
  async #fireDue(): Promise<number> {
    const due = await this.store.dueTimers(this.clock.now());
    const fired = await Promise.allSettled(due.map((timer) => this.fire(timer)));
    if (fired.some((result) => result.status === "rejected")) return RETRY_AFTER_FAILURE_MS;
    const next = await this.store.nextTimer();
    if (!next) return IDLE_POLL_MS;
    // Still due after its wake-up ran: nothing cleared it, so wait rather than spin on it.
    if (next.due_at_ms <= this.clock.now()) return RETRY_AFTER_FAILURE_MS;
    return Math.min(next.due_at_ms - this.clock.now(), IDLE_POLL_MS);
  }
}
