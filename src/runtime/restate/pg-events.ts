import pg from "pg";
import type { LoopEvent } from "../../agent/events.js";
import type { Store } from "../../storage/store.js";
import { type AgentEvent, AgentEvents } from "../agent-events.js";

/**
 * Events between processes over PostgreSQL's LISTEN/NOTIFY: a worker publishes each event of
 * its agents' turns on the schema's channel; every API process listens and tells its own
 * subscribers. A notification holds at most 8000 bytes, so a large message goes by its id and
 * the listener reads it from the store (it was committed before its event was sent).
 */

/** The largest payload sent as is; a larger message event names the message instead. */
const MAX_PAYLOAD_BYTES = 7_000;

/** The channel of a schema's events. */
export const eventsChannel = (schema: string) => `${schema}_events`;

interface Payload {
  a: string;
  r: string | null;
  /** The sender's sequence number: keeps equal events apart (see `NotifyingEvents`). */
  s?: number;
  f?: string;
  e: LoopEvent | { type: "message_ref"; id: string };
}

/**
 * The worker's side: an event bus every event of which goes out as a notification, in order.
 * Events published while a send is under way go together in the next one, one statement for
 * the batch (a turn's events used to cost a round trip each). PostgreSQL delivers a
 * transaction's notifications in the order sent, but drops a duplicate of one already sent in
 * it (two equal token deltas can be), so each payload carries a sequence number. Nobody in a
 * worker subscribes.
 */
export class NotifyingEvents extends AgentEvents {
  #failures = 0;
  #sending: Promise<void> = Promise.resolve();
  #draining = false;
  readonly #queue: string[] = [];
  #seq = 0;

  private constructor(
    private readonly client: pg.Client,
    private readonly channel: string,
  ) {
    super();
  }

  static async open(url: string, schema: string): Promise<NotifyingEvents> {
    const client = new pg.Client({ connectionString: url, application_name: "holdfast worker" });
    client.on("error", () => undefined);
    await client.connect();
    return new NotifyingEvents(client, eventsChannel(schema));
  }

  /** How many events could not be sent (the connection failed); their runs are still stored. */
  get failures(): number {
    return this.#failures;
  }

  override listening(): boolean {
    return true;
  }

  override publish(event: AgentEvent): void {
    const { agentId, runId, from, ...loop } = event;
    this.#seq += 1;
    const payload: Payload = { a: agentId, r: runId, s: this.#seq, e: loop as LoopEvent };
    if (from) payload.f = from;
    let text = JSON.stringify(payload);
    if (text.length > MAX_PAYLOAD_BYTES && loop.type === "message") {
      text = JSON.stringify({ ...payload, e: { type: "message_ref", id: loop.message.id } });
    }
    if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) return; // A huge delta: the message follows.
    this.#queue.push(text);
    if (!this.#draining) this.#sending = this.#drain();
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        await this.client
          .query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [
            this.channel,
            batch,
          ])
          .catch(() => {
            this.#failures += batch.length;
          });
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Resolves once every event published so far has been sent. */
  flush(): Promise<void> {
    return this.#sending;
  }

  async close(): Promise<void> {
    await this.#sending;
    await this.client.end().catch(() => undefined);
  }
}

/**
 * The API's side: listens on the schema's channel and publishes what arrives to `events`, in
 * the order it arrived (a message sent by id is read from the store first).
 */
export class EventListener {
  #chain: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly store: Store,
    readonly events: AgentEvents,
  ) {}

  static async open(url: string, schema: string, store: Store): Promise<EventListener> {
    const client = new pg.Client({ connectionString: url, application_name: "holdfast api" });
    client.on("error", () => undefined);
    await client.connect();
    const listener = new EventListener(client, store, new AgentEvents());
    client.on("notification", (note) => {
      if (note.payload) listener.#take(note.payload);
    });
    await client.query(`LISTEN "${eventsChannel(schema)}"`);
    return listener;
  }

  #take(text: string): void {
    let payload: Payload;
    try {
      payload = JSON.parse(text) as Payload;
    } catch {
      return;
    }
    // Most events have nobody here to hear them: they cost a parse, no store read.
    if (!this.events.listening(payload.a)) return;
    this.#chain = this.#chain.then(() => this.#deliver(payload)).catch(() => undefined);
  }

  async #deliver(payload: Payload): Promise<void> {
    const base = { agentId: payload.a, runId: payload.r, ...(payload.f && { from: payload.f }) };
    const { e } = payload;
    if (e.type !== "message_ref") {
      this.events.publish({ ...e, ...base } as AgentEvent);
      return;
    }
    const messages = payload.r ? await this.store.listRunMessages(payload.r) : [];
    const message = messages.find((m) => m.id === e.id);
    if (message) this.events.publish({ type: "message", message, ...base });
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
