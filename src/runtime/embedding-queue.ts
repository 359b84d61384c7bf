import type { Clock } from "../core/clock.js";
import { HoldfastError } from "../core/errors.js";
import type { EmbeddingModel } from "../llm/embedding-model.js";
import { ModelError } from "../llm/model-error.js";
import type { EmbeddingStatus } from "../records/agent-state.js";
import type { Store } from "../storage/store.js";
import type { EmbeddedKind } from "../storage/vector-store.js";

/** What the API shows of an agent's vectors (its `embedding_status`). */
export type EmbeddingProgress = EmbeddingStatus;

export interface EmbeddingQueueOptions {
  /** Where rows and vectors are: a store's, or any owner's (a folder's chunks) as `vectors`. */
  store: Pick<Store, "vectors">;
  clock: Clock;
  /** The agent's embedding model handle, or null for none (also for a deleted agent). */
  handleFor(agentId: string): Promise<string | null>;
  modelFor(handle: string): EmbeddingModel;
  /** Backoff after a transient failure: `baseMs` doubling per attempt up to `maxMs`. */
  retry?: { baseMs: number; maxMs: number };
  log?: (message: string) => void;
}

const DEFAULT_RETRY = { baseMs: 1_000, maxMs: 60_000 };
const KINDS: readonly EmbeddedKind[] = ["passage", "message"];

/** Where an agent's embedding got to with a model: positions read so far, per kind. */
interface Cursor {
  model: string;
  passage: number;
  message: number;
}

/**
 * Embeds passages and messages after they are committed, in the background: writes only mark
 * their agent, and one worker embeds marked agents' rows a batch (the model's `maxBatch`) per
 * request, one batch per agent in turn, never inside a step's transaction and never awaited by
 * a turn. A transient failure
 * (5xx, rate limit, timeout, network) retries the batch with exponential backoff while other
 * agents go on; any other failure stops the agent's embedding until its next write. Changing
 * an agent's model re-embeds all of its rows (a vector of another model does not count).
 */
export class EmbeddingQueue {
  private readonly marked = new Set<string>();
  private readonly cursors = new Map<string, Cursor>();
  private readonly retrying = new Set<string>();
  /** Transient failures in a row, per agent: the exponent of the next backoff. */
  private readonly attempts = new Map<string, number>();
  private readonly errors = new Map<string, string>();
  private readonly failed = new Set<string>();
  private working: string | null = null;
  private worker: Promise<void> | null = null;
  private readonly stopping = new AbortController();
  private readonly retry: { baseMs: number; maxMs: number };

  constructor(private readonly options: EmbeddingQueueOptions) {
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /** Marks every agent that has rows, to catch up on what a restart or a config change left. */
  async start(): Promise<void> {
    for (const agentId of await this.options.store.vectors.agentsWithRows()) this.notify(agentId);
  }

  /** Marks an agent whose rows changed, or whose model did; returns at once. */
  notify(agentId: string): void {
    if (this.stopping.signal.aborted) return;
    this.failed.delete(agentId);
    if (this.retrying.has(agentId)) return;
    this.marked.add(agentId);
    this.worker ??= this.drain().finally(() => {
      this.worker = null;
      // Marked between the drain's last look and now: start again.
      const next = this.marked.values().next();
      if (!next.done) {
        this.marked.delete(next.value);
        this.notify(next.value);
      }
    });
  }

  /** Resolves once nothing is marked, at work or waiting to retry (tests and benches). */
  async settled(): Promise<void> {
    while (this.worker || this.retrying.size > 0) {
      await (this.worker ?? this.options.clock.sleep(5));
    }
  }

  async progress(agentId: string): Promise<EmbeddingProgress> {
    const model = await this.options.handleFor(agentId);
    const last_error = this.errors.get(agentId) ?? null;
    if (model === null) return { model, embedded: 0, total: 0, state: "off", last_error };
    const { embedded, total } = await this.options.store.vectors.counts(agentId, model);
    const state = this.failed.has(agentId)
      ? "failed"
      : this.retrying.has(agentId)
        ? "retrying"
        : this.marked.has(agentId) || this.working === agentId || embedded < total
          ? "embedding"
          : "ready";
    return { model, embedded, total, state, last_error };
  }

  /** Stops taking work; the batch in flight finishes or is abandoned (it is redone later). */
  async stop(): Promise<void> {
    this.stopping.abort(new Error("the embedding queue stopped"));
    this.marked.clear();
    await this.worker?.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    while (this.marked.size > 0 && !this.stopping.signal.aborted) {
      const agentId = [...this.marked][0] as string;
      this.marked.delete(agentId);
      this.working = agentId;
      try {
        await this.embedAgent(agentId);
      } catch (error) {
        this.onFailure(agentId, error);
      } finally {
        this.working = null;
      }
    }
  }

  private async embedAgent(agentId: string): Promise<void> {
    const handle = await this.options.handleFor(agentId);
    if (handle === null) return;
    const model = this.options.modelFor(handle);
    let cursor = this.cursors.get(agentId);
    if (cursor?.model !== handle) {
      cursor = { model: handle, passage: 0, message: 0 };
      this.cursors.set(agentId, cursor);
    }
    const { vectors } = this.options.store;
    for (const kind of KINDS) {
      if (this.stopping.signal.aborted) return;
      const rows = await vectors.unembedded(agentId, kind, handle, cursor[kind], model.maxBatch);
      if (rows.length === 0) continue;
      const made = await model.embed(
        rows.map((row) => row.text),
        this.stopping.signal,
      );
      if (made.length !== rows.length) {
        const why = `asked for ${rows.length} vectors, got ${made.length}`;
        throw new ModelError("invalid_response", why);
      }
      await vectors.putVectors(
        agentId,
        kind,
        handle,
        rows.map((row, i) => ({ id: row.id, vector: made[i] as Float32Array })),
      );
      cursor[kind] = rows.at(-1)?.position ?? cursor[kind];
      this.errors.delete(agentId);
      this.attempts.delete(agentId);
      // One batch per turn: the agent goes to the back, so one agent's 100k passages do not
      // hold up another's new note.
      this.marked.add(agentId);
      return;
    }
  }

  private onFailure(agentId: string, error: unknown): void {
    if (this.stopping.signal.aborted) return;
    const message = error instanceof Error ? error.message : String(error);
    this.errors.set(agentId, message);
    // Transient: a provider's 5xx, 429, timeout or network error, or a busy store.
    if (!(error instanceof HoldfastError && error.retryable)) {
      this.failed.add(agentId);
      this.options.log?.(`embedding agent ${agentId} stopped: ${message}`);
      return;
    }
    // A batch that succeeds resets the count (`embedAgent`); each failure doubles the wait.
    const attempt = (this.attempts.get(agentId) ?? 0) + 1;
    this.attempts.set(agentId, attempt);
    const backoff = Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** (attempt - 1));
    const asked = error instanceof ModelError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = Math.max(backoff, asked);
    this.retrying.add(agentId);
    this.options.log?.(`embedding agent ${agentId} failed (${message}); retrying in ${delayMs} ms`);
    this.options.clock.sleep(delayMs, this.stopping.signal).then(
      () => {
        this.retrying.delete(agentId);
        this.notify(agentId);
      },
      () => this.retrying.delete(agentId),
    );
  }
}
