import type { Clock } from "../core/clock.js";
import { nextCronTime, parseCron } from "../core/cron.js";
import { HoldfastError } from "../core/errors.js";
import { IDLE_POLL_MS, RETRY_AFTER_FAILURE_MS, WakeLoop } from "../core/wake-loop.js";
import { firingKey, type ScheduledMessageRecord } from "../records/scheduled-message.js";
import type { Store } from "../storage/store.js";
import { SendMessagesRequest } from "./requests.js";

/** Sends one message as a background run (the message service's `sendAsync`). */
export type SendInBackground = (
  projectId: string,
  agentId: string,
  body: SendMessagesRequest,
) => Promise<unknown>;

/**
 * Fires scheduled messages when they are due, after a restart too: they are stored, and the
 * loop reads the soonest from the store. A firing sends with its idempotency key
 * (`firingKey`), then deletes a one-time message or moves a recurring one on. A crash between
 * the two fires it again at start-up, and the key finds the run it already started: the agent
 * gets each firing once.
 */
export class ScheduledMessageLoop {
  readonly #loop: WakeLoop;
  readonly #inFlight = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly send: SendInBackground,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.#loop = new WakeLoop(clock, () => this.#fireDue());
  }

  start(): void {
    this.#loop.start();
  }

  stop(): void {
    this.#loop.stop();
  }

  /** A scheduled message was added: it may be sooner than the one the loop sleeps for. */
  notice(): void {
    this.#loop.wake();
  }

  /** Starts every due firing not already under way; returns how long to sleep. */
  async #fireDue(): Promise<number> {
    for (const record of await this.store.schedules.due(this.clock.now())) {
      if (this.#inFlight.has(record.id)) continue;
      this.#inFlight.add(record.id);
      // A firing waits until its run starts (behind the agent's other work): never the loop.
      void this.fire(record)
        .catch((error) => this.log(`scheduled message ${record.id}: ${String(error)}`))
        .finally(() => {
          this.#inFlight.delete(record.id);
          this.notice();
        });
    }
    const next = (await this.store.schedules.next())?.next_at_ms;
    if (next === undefined) return IDLE_POLL_MS;
    return Math.max(RETRY_AFTER_FAILURE_MS, Math.min(next - this.clock.now(), IDLE_POLL_MS));
  }

  /**
   * Sends one firing and moves the record on. A retryable failure (storage busy) leaves it to
   * fire again; a terminal one (the agent waits for an approval, its model is gone) is logged
   * and the firing is skipped, as a missed cron tick is.
   */
  async fire(record: ScheduledMessageRecord): Promise<void> {
    const agent = await this.store.getAgent(record.agent_id);
    if (!agent) return void (await this.store.schedules.delete(record.id));
    const key = firingKey(record);
    if (!(await this.store.findRunByKey(agent.id, key))) {
      try {
        await this.send(agent.project_id, agent.id, requestOf(record, key));
      } catch (error) {
        if (!(error instanceof HoldfastError) || error.retryable) throw error;
        this.log(`scheduled message ${record.id} skipped: ${error.message}`);
      }
    }
    const next = nextFiring(record, this.clock.now());
    if (next === null) await this.store.schedules.delete(record.id);
    else await this.store.schedules.put({ ...record, next_at_ms: next });
  }
}

/** When a scheduled message fires next after `afterMs`: null for a one-time message. */
export function nextFiring(record: ScheduledMessageRecord, afterMs: number): number | null {
  if (record.schedule.type !== "recurring") return null;
  const after = Math.max(afterMs, record.next_at_ms);
  return nextCronTime(parseCron(record.schedule.cron_expression), after);
}

function requestOf(record: ScheduledMessageRecord, key: string): SendMessagesRequest {
  return SendMessagesRequest.parse({
    messages: record.messages.map((message, i) => ({
      type: "message",
      role: message.role,
      content:
        typeof message.content === "string"
          ? message.content
          : message.content.map((part) => ({ type: "text", text: part.text })),
      ...(i === 0 && { otid: key }),
    })),
    ...(record.max_steps !== null && { max_steps: record.max_steps }),
    ...(record.include_return_message_types !== null && {
      include_return_message_types: record.include_return_message_types,
    }),
  });
}
