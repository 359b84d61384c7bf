import { ConflictError } from "../../core/errors.js";
import type { RunRecord } from "../../records/agent-record.js";
import { pairKey } from "./rows.js";

/**
 * The in-memory store's runs, in creation order (a Map keeps a key's place when it is set
 * again), with where each run's messages begin and the idempotency key each holds.
 */
export class InMemoryRuns {
  readonly #runs = new Map<string, RunRecord>();
  /** The order number of the first message that may be a run's (`messageOrder`). */
  readonly #starts = new Map<string, number>();
  /** agent and idempotency key → the run it started. */
  readonly #keys = new Map<string, string>();

  get(runId: string): RunRecord | undefined {
    return this.#runs.get(runId);
  }

  all(): RunRecord[] {
    return [...this.#runs.values()];
  }

  /** Where the run's messages begin (0 if unknown). */
  start(runId: string): number {
    return this.#starts.get(runId) ?? 0;
  }

  /**
   * Sets a run in place, so runs stay in creation order however often they change. A new run's
   * messages begin at `firstMessage` (the first of its commit, or the next to be stored).
   */
  set(run: RunRecord, firstMessage: number): void {
    const old = this.#runs.get(run.id);
    if (!old) this.#starts.set(run.id, firstMessage);
    if (old?.idempotency_key != null) this.#keys.delete(pairKey(old.agent_id, old.idempotency_key));
    this.#runs.set(run.id, run);
    if (run.idempotency_key !== null) {
      this.#keys.set(pairKey(run.agent_id, run.idempotency_key), run.id);
    }
  }

  deleteAgent(agentId: string): void {
    for (const run of this.all()) {
      if (run.agent_id !== agentId) continue;
      if (run.idempotency_key != null) this.#keys.delete(pairKey(agentId, run.idempotency_key));
      this.#runs.delete(run.id);
      this.#starts.delete(run.id);
    }
  }

  /** A run's idempotency key may start only one run of its agent. */
  checkKey(run: RunRecord): void {
    if (run.idempotency_key === null) return;
    const holder = this.withKey(run.agent_id, run.idempotency_key);
    if (holder && holder.id !== run.id) {
      throw new ConflictError(`idempotency key '${run.idempotency_key}' already started a run`);
    }
  }

  withKey(agentId: string, key: string): RunRecord | undefined {
    const runId = this.#keys.get(pairKey(agentId, key));
    return runId === undefined ? undefined : this.#runs.get(runId);
  }
}
