import type { Clock } from "../core/clock.js";
import type { Usage } from "../records/agent-record.js";
import type {
  ChainAgentRun,
  ChainApproval,
  ChainRunRecord,
  ChainStageRun,
} from "../records/chain-run.js";
import type { Store } from "../storage/store.js";
import type { ChainEvents } from "./chain-events.js";
import { retrying } from "./retrying.js";

/**
 * A chain run's record while it is driven: every change is applied here, reported at once to
 * the run's listeners, and written behind (in order, whole, retried). `flush` waits for the
 * writes, so what follows a flush (the run's status for a caller) is what a reader finds.
 */
export class ChainRunState {
  #queue: Promise<void> = Promise.resolve();
  #last: Promise<void> = Promise.resolve();
  /** Whether a write is queued that has not yet taken its copy of the record. */
  #waiting = false;

  constructor(
    private record: ChainRunRecord,
    private readonly parts: {
      store: Store;
      clock: Clock;
      events: ChainEvents;
      signal: AbortSignal;
    },
  ) {}

  get id(): string {
    return this.record.id;
  }

  /** A copy of the record as it is now. */
  snapshot(): ChainRunRecord {
    return structuredClone(this.record);
  }

  get current(): Readonly<ChainRunRecord> {
    return this.record;
  }

  stage(index: number): ChainStageRun {
    const stage = this.record.stages[index];
    if (!stage) throw new Error(`chain run ${this.id} has no stage ${index}`);
    return stage;
  }

  updateStage(index: number, change: Partial<ChainStageRun>): void {
    const stage = Object.assign(this.stage(index), change);
    this.#save();
    const { name: stageName, status, output, error } = stage;
    this.parts.events.publish({
      type: "stage",
      runId: this.id,
      stage: stageName,
      status,
      output,
      error,
    });
  }

  updateAgent(stageIndex: number, agent: ChainAgentRun, change: Partial<ChainAgentRun>): void {
    Object.assign(agent, change);
    this.#save();
    const stage = this.stage(stageIndex).name;
    this.parts.events.publish({ type: "agent", runId: this.id, stage, agent: { ...agent } });
  }

  addUsage(usage: Usage): void {
    const total = this.record.usage;
    total.prompt_tokens += usage.prompt_tokens;
    total.completion_tokens += usage.completion_tokens;
    total.step_count += usage.step_count;
  }

  /**
   * The approvals a stage agent (or a sub-agent below it) waits for, replacing what it waited
   * for before; the run awaits approval while any is pending.
   */
  async setApprovals(stage: string, agentName: string, approvals: ChainApproval[]): Promise<void> {
    const others = this.record.pending_approvals.filter(
      (a) => a.stage !== stage || a.agent_name !== agentName,
    );
    await this.#pending([...others, ...approvals]);
  }

  /** Approvals answered: no longer pending. */
  async answered(toolCallIds: readonly string[]): Promise<void> {
    const left = this.record.pending_approvals.filter(
      (a) => !toolCallIds.includes(a.tool_call.tool_call_id),
    );
    await this.#pending(left);
  }

  async #pending(approvals: ChainApproval[]): Promise<void> {
    const before = this.record.pending_approvals.length;
    this.record.pending_approvals = approvals;
    if (before === 0 && approvals.length === 0) return;
    if (this.record.status === "running" || this.record.status === "awaiting_approval") {
      this.record.status = approvals.length > 0 ? "awaiting_approval" : "running";
    }
    await this.publishRun();
  }

  async requestCancel(): Promise<void> {
    this.record.cancel_requested = true;
    this.#save();
    await this.flush();
  }

  /** The run's end: its status, error and score, written before anyone is told. */
  async finish(
    status: "completed" | "failed" | "cancelled",
    error: ChainRunRecord["error"] = null,
  ): Promise<void> {
    const now = this.parts.clock.now();
    for (const stage of this.record.stages) {
      if (stage.status === "pending" || stage.status === "running") {
        stage.status = status === "cancelled" ? "cancelled" : "skipped";
        for (const agent of [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])]) {
          if (agent.status === "pending") agent.status = "skipped";
        }
      }
    }
    Object.assign(this.record, { status, error, pending_approvals: [], completed_at_ms: now });
    await this.publishRun();
  }

  setScore(score: ChainRunRecord["score"]): void {
    this.record.score = score;
    this.#save();
  }

  /** Writes, then tells listeners the run's status (a caller waiting for it reads it next). */
  async publishRun(): Promise<void> {
    this.#save();
    await this.flush();
    const { status, score, error, pending_approvals } = this.record;
    this.parts.events.publish({
      type: "run",
      runId: this.id,
      status,
      score,
      error,
      pendingApprovals: structuredClone(pending_approvals),
    });
  }

  /** Resolves when every change so far is stored; rejects if the last write failed for good. */
  flush(): Promise<void> {
    return this.#last;
  }

  #save(): void {
    this.record.updated_at_ms = this.parts.clock.now();
    // A write not yet begun takes the record as it is when it begins: changes made meanwhile
    // ride along, so a burst of changes costs one write, not one each.
    if (this.#waiting || this.parts.signal.aborted) return;
    const { store, clock } = this.parts;
    const write = this.#queue.then(() => {
      this.#waiting = false;
      const copy = structuredClone(this.record);
      return retrying(clock, () => store.putChainRun(copy), this.parts.signal);
    });
    this.#waiting = true;
    // Each write carries the whole record, so one that failed is made good by the next.
    this.#queue = write.catch(() => undefined);
    this.#last = write;
  }
}
