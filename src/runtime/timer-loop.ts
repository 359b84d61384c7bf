import type { Clock } from "../core/clock.js";
import { IDLE_POLL_MS, RETRY_AFTER_FAILURE_MS, WakeLoop } from "../core/wake-loop.js";
import type { TimerRecord } from "../records/agent-record.js";
import { type SessionState, wakeUpsOf } from "../records/session-state.js";
import type { Store } from "../storage/store.js";

/**
 * Durable timers: a paused session's wake-up and an approval's expiry are stored with the
 * session's checkpoint, so they fire after a restart too. The loop sleeps until the soonest.
 */
export class TimerLoop {
  readonly #loop: WakeLoop;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly fire: (timer: TimerRecord) => Promise<unknown>,
  ) {
    this.#loop = new WakeLoop(clock, () => this.#fireDue());
  }

  start(): void {
    this.#loop.start();
  }

  stop(): void {
    this.#loop.stop();
  }

  /**
   * A session changed: if it now waits for a time, look again. (Its timers were written with
   * its checkpoint, in the same transaction; the loop only needs to know it may wake sooner.)
   */
  notice(state: SessionState): void {
    const { wake, approval_expiry } = wakeUpsOf(state);
    if (wake !== null || approval_expiry !== null) this.#loop.wake();
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
