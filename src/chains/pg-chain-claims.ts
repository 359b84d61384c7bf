import { hostname } from "node:os";
import pg from "pg";
import type { ChainClaims, ChainCommand, ClaimListener } from "./chain-claims.js";

/** The advisory locks' first key ("Chns"); the second is the hash of schema and run. */
const CLAIM_CLASS = 0x43686e73;
/** How often an API process looks for runs whose process died. */
const SWEEP_MS = 2_000;

/**
 * Chain runs shared by the API processes of one PostgreSQL schema (the scale-out engine). A
 * run is driven by the process holding its session-level advisory lock, on one connection kept
 * for the process's life: a process that dies, even by `kill -9`, lets its runs go as its
 * connection closes, and another process's sweep takes them up. Commands for a run go out by
 * NOTIFY on the schema's chain channel; only the process driving the run acts on them.
 */
export class PgChainClaims implements ChainClaims {
  readonly sweepMs = SWEEP_MS;
  readonly #held = new Set<string>();
  #listener: ClaimListener | null = null;
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #closed = false;

  private constructor(
    private readonly url: string,
    private readonly schema: string,
  ) {}

  static async open(url: string, schema: string): Promise<PgChainClaims> {
    const claims = new PgChainClaims(url, schema);
    await claims.#connection();
    return claims;
  }

  async claim(runId: string): Promise<boolean> {
    if (this.#held.has(runId)) return true;
    const client = await this.#connection();
    const { rows } = await client.query("SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok", [
      CLAIM_CLASS,
      this.#key(runId),
    ]);
    if (rows[0]?.ok !== true) return false;
    this.#held.add(runId);
    return true;
  }

  async release(runId: string): Promise<void> {
    if (!this.#held.delete(runId) || !this.#client) return;
    await this.#client
      .query("SELECT pg_advisory_unlock($1, hashtext($2))", [CLAIM_CLASS, this.#key(runId)])
      .catch(() => undefined);
  }

  async tell(runId: string, command: ChainCommand): Promise<void> {
    const client = await this.#connection();
    await client.query("SELECT pg_notify($1, $2)", [
      this.#channel,
      JSON.stringify({ r: runId, c: command }),
    ]);
  }

  listen(listener: ClaimListener): void {
    this.#listener = listener;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#held.clear();
    // Closing the session releases its advisory locks.
    await this.#client?.end().catch(() => undefined);
  }

  get #channel(): string {
    return `${this.schema}_chains`;
  }

  #key(runId: string): string {
    return `${this.schema}:${runId}`;
  }

  /** The connection, opened again after it failed (its claims were lost with it). */
  #connection(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#closed) return Promise.reject(new Error("chain claims are closed"));
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #connect(): Promise<pg.Client> {
    const me = `holdfast chains pid ${process.pid} on ${hostname()}`.slice(0, 63);
    const client = new pg.Client({
      connectionString: this.url,
      application_name: me,
      keepAlive: true,
    });
    client.on("error", () => this.#drop(client));
    client.on("end", () => this.#drop(client));
    client.on("notification", (note) => this.#take(note.payload));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.#client = client;
    return client;
  }

  #drop(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    const had = this.#held.size > 0;
    this.#held.clear();
    client.end().catch(() => undefined);
    if (had && !this.#closed) this.#listener?.lost();
  }

  #take(payload: string | undefined): void {
    let note: { r: string; c: ChainCommand };
    try {
      note = JSON.parse(payload ?? "") as { r: string; c: ChainCommand };
    } catch {
      return;
    }
    if (this.#held.has(note.r)) this.#listener?.command(note.r, note.c);
  }
}
