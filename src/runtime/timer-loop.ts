import type { Clock } from "../core/clock.js";
import type { TimerRecord } from "../records/agent-record.js";
import type { SessionState } from "../records/session-state.js";
import type { Store } from "../storage/store.js";

/** How often the loop looks for due timers when none is nearer; a new timer also wakes it. */
const IDLE_POLL_MS = 60_000;
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * Durable timers: a paused session's wake-up and an approval's expiry are stored with the
 * session, so they fire after a restart too. The loop sleeps until the soonest one.
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
   * Sets or clears the agent's timers to match its session. Given the session as it was
   * before, a timer that cannot exist is not cleared: an ordinary turn writes nothing here.
   */
  async schedule(agentId: string, state: SessionState, before?: SessionState): Promise<void> {
    const wake = state.phase === "paused" ? state.pause_until_ms : null;
    const expiry = soonestExpiry(state);
    const hadWake = !before || before.phase === "paused";
    const hadExpiry = !before || soonestExpiry(before) !== null;
    if (wake !== null)
      await this.store.putTimer({ agent_id: agentId, kind: "wake", due_at_ms: wake });
    else if (hadWake) await this.store.clearTimer(agentId, "wake");
    if (expiry !== null) {
      await this.store.putTimer({ agent_id: agentId, kind: "approval_expiry", due_at_ms: expiry });
    } else if (hadExpiry) {
      await this.store.clearTimer(agentId, "approval_expiry");
    }
    if (wake !== null || expiry !== null) this.#sleep?.abort();
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

/** When the soonest pending approval of the session expires, if any waits. */
function soonestExpiry(state: SessionState): number | null {
  const expiries = state.pending.flatMap((call) =>
    call.status === "awaiting_approval" && call.approval_expires_at_ms !== null
      ? [call.approval_expires_at_ms]
      : [],
  );
  return expiries.length > 0 ? Math.min(...expiries) : null;
}
