import type { ChainDefinition } from "../config/chain-definition.js";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { type ChainRunRecord, FINISHED_CHAIN_STATUSES } from "../records/chain-run.js";
import type { ApprovalDecision } from "../records/messages.js";
import { type ChainClaims, type ChainCommand, soleProcess } from "./chain-claims.js";
import { ChainDriver } from "./chain-driver.js";
import { type ChainEventListener, ChainEvents } from "./chain-events.js";
import { newChainRun } from "./chain-record.js";
import { ChainRunState } from "./chain-run-state.js";
import type { ChainParts } from "./stage-agent.js";

const REDRIVE_MS = 1_000;
const MAX_REDRIVE_MS = 60_000;
/** How often a run driven by another process is read back while waiting for it. */
const POLL_MS = 250;

/** Where a chain run could not be carried on at start-up. */
export interface ChainResumeFailure {
  runId: string;
  error: string;
}

/**
 * Runs chains on an engine: starts runs, carries unfinished ones on after a restart, answers
 * their approvals, cancels them and tells listeners what happens. A run is driven by one
 * driver in one process (`claims` says which); its record is the truth, so a driver that fails
 * (a store that stays down) is simply started again from it, here or in another process.
 * A run driven elsewhere is answered from the store, and its cancels and approvals are told to
 * the process that drives it.
 */
export class ChainRunner {
  readonly #drivers = new Map<string, ChainDriver>();
  readonly #events = new ChainEvents();
  readonly #base: Omit<ChainParts, "signal">;
  #stopping = false;
  /** Aborted at shutdown: writes and retries in flight give up; runs carry on at next start. */
  readonly #stop = new AbortController();
  /** Aborted when this process's claims are lost: its drivers stop writing. */
  #epoch = new AbortController();

  constructor(
    parts: Omit<ChainParts, "events" | "signal">,
    /** Told when a run's driver failed and will drive it again after `retryMs`. */
    private readonly report: (runId: string, error: unknown, retryMs: number) => void = () => {},
    private readonly claims: ChainClaims = soleProcess,
  ) {
    this.#base = { ...parts, events: this.#events };
    claims.listen({
      command: (runId, command) => this.#obey(runId, command),
      lost: () => this.#dropAll(),
    });
  }

  get #parts(): ChainParts {
    return {
      ...this.#base,
      signal: AbortSignal.any([this.#stop.signal, this.#epoch.signal]),
    };
  }

  /** Stores a new run of the chain and starts it; returns the run as first stored. */
  async start(projectId: string, chain: ChainDefinition, input: string): Promise<ChainRunRecord> {
    const { ids, clock, store } = this.#base;
    const id = ids.next("chainrun");
    const record = newChainRun(chain, { id, projectId, input, nowMs: clock.now() });
    await this.claims.claim(id);
    await store.putChainRun(record);
    this.#drive(chain, record);
    return record;
  }

  /** Carries on every unfinished run no other process drives (after the engine resumed its agents). */
  async resume(): Promise<ChainResumeFailure[]> {
    const failures: ChainResumeFailure[] = [];
    for (const record of await this.#base.store.unfinishedChainRuns()) {
      const taken = await this.#adopt(record);
      if (typeof taken !== "boolean") failures.push(taken);
    }
    return failures;
  }

  /**
   * Looks, every `claims.sweepMs`, for runs no process drives (the one that did died) and
   * carries them on here. Nothing to do where this process is the only one.
   */
  sweep(): void {
    const every = this.claims.sweepMs;
    if (every === null) return;
    void (async () => {
      while (!this.#stopping) {
        await this.#base.clock.sleep(every, this.#stop.signal).catch(() => undefined);
        if (!this.#stopping) await this.resume().catch(() => undefined);
      }
    })();
  }

  /** The run as it is now (its driver's view while driven, else the stored record). */
  async get(runId: string): Promise<ChainRunRecord | null> {
    const driver = this.#drivers.get(runId);
    return driver ? driver.state.snapshot() : this.#base.store.getChainRun(runId);
  }

  /**
   * Resolves when the run no longer runs: it ended, or (unless `untilEnd`) it waits for an
   * approval.
   */
  async settled(runId: string, untilEnd = false): Promise<ChainRunRecord> {
    const settledBy = (status: ChainRunRecord["status"]) =>
      untilEnd ? FINISHED_CHAIN_STATUSES.includes(status) : status !== "running";
    if (!this.#drivers.has(runId)) {
      const stored = await this.#elsewhere(runId, (run) => settledBy(run.status));
      if (stored) return stored;
    }
    const driver = this.#drivers.get(runId);
    if (!driver) return this.#stored(runId);
    return new Promise((resolve) => {
      const done = () => {
        unsubscribe();
        resolve(driver.state.snapshot());
      };
      const unsubscribe = this.#events.subscribe(runId, (event) => {
        if (event.type === "run" && settledBy(event.status)) done();
      });
      if (settledBy(driver.state.current.status)) done();
    });
  }

  /** Answers approvals the run's agents wait for; each decision goes to the agent that asked. */
  async approve(runId: string, decisions: readonly ApprovalDecision[]): Promise<void> {
    const ids = decisions.map((d) => d.tool_call_id);
    const driver = this.#drivers.get(runId);
    if (!driver) {
      const byAgent = byAsker(runId, (await this.#stored(runId)).pending_approvals, decisions);
      // The run is running again before the answers go out (as below), but in the process
      // that drives it: told, and read back until it shows.
      const told = await this.#elsewhere(
        runId,
        (run) => !run.pending_approvals.some((a) => ids.includes(a.tool_call.tool_call_id)),
        () => this.claims.tell(runId, { op: "answered", toolCallIds: ids }),
      );
      if (told) return this.#answer(byAgent);
      return this.approve(runId, decisions);
    }
    const byAgent = byAsker(runId, driver.state.current.pending_approvals, decisions);
    // The run is running again before the answers go out, so a caller waiting for it to
    // settle waits for what the answers lead to.
    await driver.state.answered(ids);
    await this.#answer(byAgent);
  }

  /** Cancels the run's agents at work and ends it as cancelled; false if it had ended. */
  async cancel(runId: string): Promise<boolean> {
    if (!this.#drivers.has(runId)) {
      if (FINISHED_CHAIN_STATUSES.includes((await this.#stored(runId)).status)) return false;
      const ended = await this.#elsewhere(
        runId,
        (run) => FINISHED_CHAIN_STATUSES.includes(run.status),
        () => this.claims.tell(runId, { op: "cancel" }),
      );
      if (ended) return true;
    }
    const driver = this.#drivers.get(runId);
    if (!driver) return false;
    await driver.cancel();
    return true;
  }

  subscribe(runId: string, listener: ChainEventListener): () => void {
    return this.#events.subscribe(runId, listener);
  }

  /** Whether a driver in this process runs it now. */
  driving(runId: string): boolean {
    return this.#drivers.has(runId);
  }

  /** Stops starting work; runs left unfinished carry on at the next start (or elsewhere). */
  shutdown(): void {
    this.#stopping = true;
    this.#stop.abort();
  }

  async #stored(runId: string): Promise<ChainRunRecord> {
    const stored = await this.#base.store.getChainRun(runId);
    if (!stored) throw new NotFoundError("chain run", runId);
    return stored;
  }

  /**
   * For a run this process does not drive: reads it back until `done` holds, nudging the
   * process that drives it each time. Null if this process drives it now instead (nobody did,
   * or its process died): the caller then goes on as for a run of its own.
   */
  async #elsewhere(
    runId: string,
    done: (run: ChainRunRecord) => boolean,
    nudge?: () => Promise<void>,
  ): Promise<ChainRunRecord | null> {
    for (;;) {
      const stored = await this.#stored(runId);
      if (done(stored)) return stored;
      if ((await this.#adopt(stored)) === true) return null;
      await nudge?.();
      await this.#base.clock.sleep(POLL_MS, this.#stop.signal);
    }
  }

  /**
   * Drives an unfinished run here if no other process does: true if it is driven here now,
   * false if it is not (it ended, or another process drives it), or why it cannot be carried
   * on (its chain changed or is gone; the run is then ended as failed).
   */
  async #adopt(record: ChainRunRecord): Promise<boolean | ChainResumeFailure> {
    if (this.#drivers.has(record.id)) return true;
    if (this.#stopping || FINISHED_CHAIN_STATUSES.includes(record.status)) return false;
    if (!(await this.claims.claim(record.id))) return false;
    // Read again under the claim: the process that let it go may have ended it first.
    const current = await this.#stored(record.id);
    if (FINISHED_CHAIN_STATUSES.includes(current.status)) {
      await this.claims.release(record.id);
      return false;
    }
    const chain = this.#base.config.chains.get(current.chain);
    const problem = chain
      ? shapeChange(chain, current)
      : `chain '${current.chain}' is no longer configured`;
    if (chain && !problem) {
      this.#drive(chain, current);
      return true;
    }
    const error = problem ?? "";
    await this.#state(current, this.#parts).finish("failed", { stage: null, message: error });
    await this.claims.release(record.id);
    return { runId: record.id, error };
  }

  async #answer(byAgent: Map<string, ApprovalDecision[]>): Promise<void> {
    const { engine } = this.#base;
    await Promise.all([...byAgent].map(([agentId, answers]) => engine.approve(agentId, answers)));
  }

  /** A command told by another process for a run driven here. */
  #obey(runId: string, command: ChainCommand): void {
    const driver = this.#drivers.get(runId);
    if (!driver) return;
    if (command.op === "answered") void driver.state.answered(command.toolCallIds).catch(() => {});
    else if (!driver.state.current.cancel_requested) void driver.cancel().catch(() => {});
  }

  /** This process's claims are gone: its drivers stop, and any process may take the runs. */
  #dropAll(): void {
    this.#epoch.abort();
    this.#epoch = new AbortController();
    this.#drivers.clear();
  }

  #state(record: ChainRunRecord, parts: ChainParts): ChainRunState {
    const { store, clock, signal } = parts;
    return new ChainRunState(record, { store, clock, events: this.#events, signal });
  }

  #drive(chain: ChainDefinition, record: ChainRunRecord): void {
    const parts = this.#parts;
    const driver = new ChainDriver(parts, chain, this.#state(record, parts));
    this.#drivers.set(record.id, driver);
    const ended = () => this.#stopping || parts.signal.aborted;
    const attempt = (n: number): void => {
      driver.drive().then(
        () => {
          if (this.#drivers.get(record.id) !== driver) return;
          this.#drivers.delete(record.id);
          void this.claims.release(record.id);
        },
        async (error: unknown) => {
          // Every step can be repeated: drive again from the record, later.
          if (ended()) return;
          const delay = Math.min(REDRIVE_MS * 2 ** n, MAX_REDRIVE_MS);
          this.report(record.id, error, delay);
          await this.#base.clock.sleep(delay);
          if (!ended()) attempt(n + 1);
        },
      );
    };
    attempt(0);
  }
}

/** The decisions grouped by the agent that asked; a 422 naming any that nobody asked for. */
function byAsker(
  runId: string,
  pending: ChainRunRecord["pending_approvals"],
  decisions: readonly ApprovalDecision[],
): Map<string, ApprovalDecision[]> {
  if (pending.length === 0) {
    throw new ConflictError(`chain run '${runId}' is not waiting for an approval`);
  }
  const byAgent = new Map<string, ApprovalDecision[]>();
  const errors = decisions.flatMap((decision, i) => {
    const asked = pending.find((a) => a.tool_call.tool_call_id === decision.tool_call_id);
    if (!asked) {
      const message = `no approval '${decision.tool_call_id}' is pending in this run`;
      return [{ path: `approvals.${i}.tool_call_id`, message }];
    }
    byAgent.set(asked.agent_id, [...(byAgent.get(asked.agent_id) ?? []), decision]);
    return [];
  });
  if (errors.length > 0) throw new ValidationError("unknown approval", errors);
  return byAgent;
}

/** Why a stored run no longer fits its chain (stages or agents renamed), or null. */
function shapeChange(chain: ChainDefinition, record: ChainRunRecord): string | null {
  const names = (stages: { name: string; agents: { name: string }[] }[]) =>
    JSON.stringify(stages.map((s) => [s.name, s.agents.map((a) => a.name)]));
  return names(chain.stages) === names(record.stages)
    ? null
    : `chain '${chain.name}' changed (stages or agents) since this run began`;
}
