import type { ChainDefinition } from "../config/chain-definition.js";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { type ChainRunRecord, FINISHED_CHAIN_STATUSES } from "../records/chain-run.js";
import type { ApprovalDecision } from "../records/messages.js";
import { ChainDriver } from "./chain-driver.js";
import { type ChainEventListener, ChainEvents } from "./chain-events.js";
import { newChainRun } from "./chain-record.js";
import { ChainRunState } from "./chain-run-state.js";
import type { ChainParts } from "./stage-agent.js";

const REDRIVE_MS = 1_000;
const MAX_REDRIVE_MS = 60_000;

/** Where a chain run could not be carried on at start-up. */
export interface ChainResumeFailure {
  runId: string;
  error: string;
}

/**
 * Runs chains on an engine: starts runs, carries unfinished ones on after a restart, answers
 * their approvals, cancels them and tells listeners what happens. A run is driven by one
 * driver in this process; its record is the truth, so a driver that fails (a store that stays
 * down) is simply started again from it.
 */
export class ChainRunner {
  readonly #drivers = new Map<string, ChainDriver>();
  readonly #events: ChainEvents;
  readonly #parts: ChainParts;
  #stopping = false;
  /** Aborted at shutdown: writes and retries in flight give up; runs carry on at next start. */
  readonly #stop = new AbortController();

  constructor(
    parts: Omit<ChainParts, "events" | "signal">,
    /** Told when a run's driver failed and will drive it again after `retryMs`. */
    private readonly report: (runId: string, error: unknown, retryMs: number) => void = () => {},
  ) {
    this.#events = new ChainEvents();
    this.#parts = { ...parts, events: this.#events, signal: this.#stop.signal };
  }

  /** Stores a new run of the chain and starts it; returns the run as first stored. */
  async start(projectId: string, chain: ChainDefinition, input: string): Promise<ChainRunRecord> {
    const { ids, clock, store } = this.#parts;
    const id = ids.next("chainrun");
    const record = newChainRun(chain, { id, projectId, input, nowMs: clock.now() });
    await store.putChainRun(record);
    this.#drive(chain, record);
    return record;
  }

  /** Carries on every unfinished run (after the engine resumed its agents). */
  async resume(): Promise<ChainResumeFailure[]> {
    const failures: ChainResumeFailure[] = [];
    for (const record of await this.#parts.store.unfinishedChainRuns()) {
      if (this.#drivers.has(record.id)) continue;
      const chain = this.#parts.config.chains.get(record.chain);
      const problem = chain
        ? shapeChange(chain, record)
        : `chain '${record.chain}' is no longer configured`;
      if (chain && !problem) {
        this.#drive(chain, record);
        continue;
      }
      failures.push({ runId: record.id, error: problem ?? "" });
      const state = this.#state(record);
      await state.finish("failed", { stage: null, message: problem ?? "" });
    }
    return failures;
  }

  /** The run as it is now (its driver's view while driven, else the stored record). */
  async get(runId: string): Promise<ChainRunRecord | null> {
    const driver = this.#drivers.get(runId);
    return driver ? driver.state.snapshot() : this.#parts.store.getChainRun(runId);
  }

  /**
   * Resolves when the run no longer runs: it ended, or (unless `untilEnd`) it waits for an
   * approval.
   */
  async settled(runId: string, untilEnd = false): Promise<ChainRunRecord> {
    const driver = this.#drivers.get(runId);
    if (!driver) {
      const stored = await this.#parts.store.getChainRun(runId);
      if (!stored) throw new NotFoundError("chain run", runId);
      return stored;
    }
    const settledBy = (status: ChainRunRecord["status"]) =>
      untilEnd ? FINISHED_CHAIN_STATUSES.includes(status) : status !== "running";
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
    const driver = this.#drivers.get(runId);
    const pending = driver?.state.current.pending_approvals ?? [];
    if (!driver || pending.length === 0) {
      if (!driver && !(await this.#parts.store.getChainRun(runId))) {
        throw new NotFoundError("chain run", runId);
      }
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
    // The run is running again before the answers go out, so a caller waiting for it to
    // settle waits for what the answers lead to.
    await driver.state.answered(decisions.map((d) => d.tool_call_id));
    await Promise.all(
      [...byAgent].map(([agentId, answers]) => this.#parts.engine.approve(agentId, answers)),
    );
  }

  /** Cancels the run's agents at work and ends it as cancelled; false if it had ended. */
  async cancel(runId: string): Promise<boolean> {
    const driver = this.#drivers.get(runId);
    if (driver) {
      await driver.cancel();
      return true;
    }
    const stored = await this.#parts.store.getChainRun(runId);
    if (!stored) throw new NotFoundError("chain run", runId);
    return false;
  }

  subscribe(runId: string, listener: ChainEventListener): () => void {
    return this.#events.subscribe(runId, listener);
  }

  /** Whether a driver in this process runs it now. */
  driving(runId: string): boolean {
    return this.#drivers.has(runId);
  }

  /** Stops starting work; runs left unfinished carry on at the next start. */
  shutdown(): void {
    this.#stopping = true;
    this.#stop.abort();
  }

  #state(record: ChainRunRecord): ChainRunState {
    const { store, clock } = this.#parts;
    return new ChainRunState(record, {
      store,
      clock,
      events: this.#events,
      signal: this.#stop.signal,
    });
  }

  #drive(chain: ChainDefinition, record: ChainRunRecord): void {
    const driver = new ChainDriver(this.#parts, chain, this.#state(record));
    this.#drivers.set(record.id, driver);
    const attempt = (n: number): void => {
      driver.drive().then(
        () => this.#drivers.delete(record.id),
        async (error: unknown) => {
          // Every step can be repeated: drive again from the record, later.
          if (this.#stopping) return;
          const delay = Math.min(REDRIVE_MS * 2 ** n, MAX_REDRIVE_MS);
          this.report(record.id, error, delay);
          await this.#parts.clock.sleep(delay);
          if (!this.#stopping) attempt(n + 1);
        },
      );
    };
    attempt(0);
  }
}

/** Why a stored run no longer fits its chain (stages or agents renamed), or null. */
function shapeChange(chain: ChainDefinition, record: ChainRunRecord): string | null {
  const names = (stages: { name: string; agents: { name: string }[] }[]) =>
    JSON.stringify(stages.map((s) => [s.name, s.agents.map((a) => a.name)]));
  return names(chain.stages) === names(record.stages)
    ? null
    : `chain '${chain.name}' changed (stages or agents) since this run began`;
}
