import { AsyncResource } from "node:async_hooks";
import type { Clock } from "../core/clock.js";
import { assert } from "../core/errors.js";
import { BusyError } from "./busy-error.js";

export interface DispatcherOptions<A> {
  /** The most activations alive at once; idle ones are evicted to make room. */
  maxActivations: number;
  /** The most messages waiting per agent; past it, `submit` throws BusyError. */
  mailboxCapacity: number;
  /** An activation with nothing to do for this long is deactivated. */
  idleMs: number;
  clock: Clock;
  /** Loads an agent into memory (and resumes what it was doing). */
  activate(agentId: string): Promise<A>;
  /** Called with the activation before each job runs on it. */
  beforeJob?(activation: A): void;
  /** Lets an agent go; called once per activation. */
  deactivate?(agentId: string, activation: A): Promise<void>;
}

interface Slot<A> {
  activation: Promise<A> | null;
  readonly mailbox: (() => Promise<void>)[];
  running: boolean;
  /** When the slot last became idle (clock ms); null while it has work. */
  idleSince: number | null;
  /** Resolved when the mailbox is next empty and nothing runs. */
  readonly drained: (() => void)[];
}

/**
 * The virtual-actor dispatcher: at most one activation per agent id, a FIFO mailbox per agent
 * so its messages run one at a time in order, activation on the first message, deactivation
 * when idle, and a bound on live activations. Callers only hold agent ids.
 */
export class Dispatcher<A> {
  readonly #slots = new Map<string, Slot<A>>();
  readonly #waitingForRoom: (() => void)[] = [];
  #live = 0;
  #accepting = true;
  /** The idle sweep while one sleeps (see `#sweepIdle`). */
  #sweeping: AbortController | null = null;

  constructor(private readonly options: DispatcherOptions<A>) {}

  /** How many agents are activated now. */
  /** Operations waiting in mailboxes (not those running). */
  get mailboxDepth(): number {
    let depth = 0;
    for (const slot of this.#slots.values()) depth += slot.mailbox.length;
    return depth;
  }

  get activeCount(): number {
    return this.#live;
  }

  isActive(agentId: string): boolean {
    return this.#slots.get(agentId)?.activation != null;
  }

  /** Queues `work` for the agent; resolves with its result once it has run, in order. */
  submit<T>(agentId: string, work: (activation: A) => Promise<T>): Promise<T> {
    if (!this.#accepting) return Promise.reject(new BusyError("the server is shutting down", 1000));
    const slot = this.#slots.get(agentId) ?? this.#newSlot(agentId);
    if (slot.mailbox.length >= this.options.mailboxCapacity) {
      const waiting = slot.mailbox.length;
      return Promise.reject(
        new BusyError(`agent ${agentId} has ${waiting} messages waiting`, 1000),
      );
    }
    return new Promise<T>((resolve, reject) => {
      // The job runs in its submitter's async context, whichever job's loop drains it.
      slot.mailbox.push(
        AsyncResource.bind(async () => {
          try {
            slot.activation ??= this.#activate(agentId);
            const activation = await slot.activation;
            this.options.beforeJob?.(activation);
            resolve(await work(activation));
          } catch (error) {
            reject(error);
          }
        }),
      );
      slot.idleSince = null;
      void this.#drain(agentId, slot);
    });
  }

  /** Stops taking work, lets what is queued finish, and deactivates every agent. */
  async shutdown(): Promise<void> {
    this.#accepting = false;
    await Promise.all([...this.#slots.values()].map((slot) => this.#whenDrained(slot)));
    await Promise.all([...this.#slots.keys()].map((id) => this.#close(id)));
    this.#sweeping?.abort();
  }

  #newSlot(agentId: string): Slot<A> {
    const slot: Slot<A> = {
      activation: null,
      mailbox: [],
      running: false,
      idleSince: null,
      drained: [],
    };
    this.#slots.set(agentId, slot);
    return slot;
  }

  /** Waits for room under the bound, evicting idle agents first, then activates. */
  async #activate(agentId: string): Promise<A> {
    while (this.#live >= this.options.maxActivations) {
      const idle = [...this.#slots].find(
        ([id, s]) => id !== agentId && s.activation !== null && !s.running,
      );
      if (idle) await this.#close(idle[0]);
      else await new Promise<void>((resolve) => this.#waitingForRoom.push(resolve));
    }
    this.#live += 1;
    try {
      return await this.options.activate(agentId);
    } catch (error) {
      // A failed activation holds no room; the next message tries again.
      this.#live -= 1;
      const slot = this.#slots.get(agentId);
      if (slot) slot.activation = null;
      this.#waitingForRoom.shift()?.();
      throw error;
    }
  }

  async #drain(agentId: string, slot: Slot<A>): Promise<void> {
    if (slot.running) return;
    slot.running = true;
    try {
      for (let next = slot.mailbox.shift(); next; next = slot.mailbox.shift()) await next();
    } finally {
      slot.running = false;
    }
    for (const done of slot.drained.splice(0)) done();
    if (this.#slots.get(agentId) !== slot) return;
    if (slot.activation !== null) this.#scheduleIdle(slot);
    else this.#slots.delete(agentId);
    this.#waitingForRoom.shift()?.();
  }

  #scheduleIdle(slot: Slot<A>): void {
    slot.idleSince = this.options.clock.now();
    if (!this.#sweeping) void this.#sweepIdle();
  }

  /**
   * Deactivates agents idle for `idleMs`: one timer for every agent, not one each (an idle
   * agent's timer, controller and listeners were most of what it held). It sleeps until the
   * soonest agent is due, at least an eighth of `idleMs` at a time so that agents idling at
   * many different moments share a wake-up, and stops once no agent is idle.
   */
  async #sweepIdle(): Promise<void> {
    const stop = new AbortController();
    this.#sweeping = stop;
    const { clock, idleMs } = this.options;
    try {
      while (!stop.signal.aborted) {
        const now = clock.now();
        let soonest = Number.POSITIVE_INFINITY;
        for (const [agentId, slot] of this.#slots) {
          if (slot.idleSince === null || slot.running || slot.mailbox.length > 0) continue;
          const due = slot.idleSince + idleMs;
          if (due <= now) void this.#close(agentId);
          else soonest = Math.min(soonest, due);
        }
        if (soonest === Number.POSITIVE_INFINITY) return;
        await clock.sleep(Math.max(soonest - now, idleMs / 8), stop.signal);
      }
    } catch {
      // Aborted at shutdown.
    } finally {
      if (this.#sweeping === stop) this.#sweeping = null;
    }
  }

  async #close(agentId: string): Promise<void> {
    const slot = this.#slots.get(agentId);
    if (!slot) return;
    assert(
      !slot.running && slot.mailbox.length === 0,
      `closing agent ${agentId} while it has work`,
    );
    this.#slots.delete(agentId);
    slot.idleSince = null;
    if (slot.activation !== null) {
      const activation = await slot.activation.catch(() => null);
      if (activation !== null) {
        this.#live -= 1;
        await this.options.deactivate?.(agentId, activation);
      }
    }
    this.#waitingForRoom.shift()?.();
  }

  #whenDrained(slot: Slot<A>): Promise<void> {
    if (!slot.running && slot.mailbox.length === 0) return Promise.resolve();
    return new Promise((resolve) => slot.drained.push(resolve));
  }
}
