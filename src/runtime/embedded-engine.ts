import {
  cancelTurn,
  deliverChildResults,
  resumeSession,
  sendUserMessage,
  submitApprovals,
  type TurnResult,
  wakeFromPause,
} from "../agent/run-turn.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { applyBlockEdit, type BlockEdit } from "../memory/block-edit.js";
import { type AgentChange, applyAgentChange } from "../records/agent-change.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { CoreBlock } from "../records/memory-records.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import { type Activation, loadActivation, reloadActivation } from "./activation.js";
import { type AgentEventListener, AgentEvents, publisherFor } from "./agent-events.js";
import { childSpawner } from "./child-spawner.js";
import { Dispatcher } from "./dispatcher.js";
import type { Engine, MessageInput, ResumeFailure, RunOutcome, SendOptions } from "./engine.js";
import {
  finishedOutcome,
  refuseWhileApprovalPending,
  stoppedForCaller,
  storedOutcome,
  withMaxSteps,
} from "./outcomes.js";
import { SessionMover } from "./session-mover.js";
import { type AwaitedChild, approvalsBelow, childProgress, childTasks } from "./sub-agents.js";
import { TimerLoop } from "./timer-loop.js";
import { type EngineOptions, Turns } from "./turns.js";

/** How a job on an agent left its run: stopped for the caller, or sleeping for its children. */
type Settled =
  | { kind: "stopped"; outcome: RunOutcome }
  | { kind: "sleeping"; runId: string; wake: Promise<unknown> };

const RETRY_MS = 1_000;

/**
 * The embedded engine: agents as virtual actors in this process over a store. Every operation
 * goes through the dispatcher, so an agent has one activation and runs one thing at a time;
 * every step is committed; interrupted sessions resume at start-up; timers wake paused sessions
 * and expire approvals. A parent that spawned sub-agents sleeps in its checkpoint until their
 * runs end: nothing waits in memory, and a restart re-drives whatever was in flight.
 */
export class EmbeddedEngine implements Engine {
  readonly #events = new AgentEvents();
  readonly #dispatcher: Dispatcher<Activation>;
  readonly #timers: TimerLoop;
  readonly #turns: Turns;
  readonly #sessions: SessionMover;
  /** The activations alive now, for cancel, which must not wait in the mailbox. */
  readonly #live = new Map<string, Activation>();
  /** Children's tasks on their way to a child's mailbox, so a task is never queued twice. */
  readonly #delivering = new Set<string>();
  #stopping = false;

  constructor(private readonly options: EngineOptions) {
    this.#dispatcher = new Dispatcher<Activation>({
      maxActivations: options.maxActivations ?? 10_000,
      mailboxCapacity: options.mailboxCapacity ?? 100,
      idleMs: options.idleMs ?? 5 * 60_000,
      clock: options.clock,
      activate: async (agentId) => {
        const activation = await loadActivation(agentId, options);
        this.#live.set(agentId, activation);
        options.observe?.activated(agentId);
        return activation;
      },
      deactivate: async (agentId) => {
        this.#live.delete(agentId);
        options.observe?.deactivated(agentId);
      },
    });
    this.#timers = new TimerLoop(options.store, options.clock, (timer) =>
      this.#dispatcher.submit(timer.agent_id, (activation) => this.#onTimer(activation)),
    );
    this.#turns = new Turns(options, this.#timers, {
      extras: (activation) => ({
        onEvent: publisherFor(this.#events, activation.record.id, activation.state.run_id),
        children: childSpawner(activation, options),
      }),
      settled: (activation, result) => void this.#settle(activation, result, false),
    });
    this.#sessions = new SessionMover(options, this.#dispatcher, this.#turns, this.#timers);
  }

  get activeCount(): number {
    return this.#dispatcher.activeCount;
  }

  async start(): Promise<ResumeFailure[]> {
    this.#timers.start();
    const interrupted = await this.options.store.interruptedSessions();
    const recovered = await Promise.allSettled(
      interrupted.map((agentId) => this.#dispatcher.submit(agentId, (a) => this.#recover(a))),
    );
    // One agent that cannot resume (its type was removed, say) must not keep the rest down;
    // it resumes when it is next used, and the caller reports it.
    return recovered.flatMap((result, i) =>
      result.status === "rejected" ? [{ agentId: interrupted[i] ?? "", error: result.reason }] : [],
    );
  }

  async send(agentId: string, input: MessageInput, options: SendOptions = {}): Promise<RunOutcome> {
    for (;;) {
      const job = await this.#dispatcher.submit(agentId, async (activation) => {
        await this.#turns.finishInterrupted(activation);
        if (input.otid) {
          const seen = await this.options.store.findRunByKey(agentId, input.otid);
          if (seen) return { kind: "duplicate" as const, runId: seen.id };
        }
        const { state } = activation;
        await refuseWhileApprovalPending(this.options.store, agentId, state);
        if (state.phase === "awaiting_children" && state.run_id) {
          // The run in progress sleeps until its children end: this message queues behind it.
          return { kind: "queued" as const, wake: this.#events.nextStop(agentId, state.run_id) };
        }
        const turn = withMaxSteps(activation.agent, options.maxSteps);
        const message = { ...input, ...(options.runId ? { runId: options.runId } : {}) };
        const result = await this.#turns.run(activation, (deps) =>
          sendUserMessage(turn, activation.state, message, deps),
        );
        return this.#settle(activation, result, true);
      });
      if (job.kind === "queued") {
        await job.wake;
        continue;
      }
      if (job.kind === "duplicate") {
        return {
          ...(await storedOutcome(this.options.store, agentId, job.runId)),
          duplicate: true,
        };
      }
      return this.#outcome(agentId, job);
    }
  }

  async approve(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options: SendOptions = {},
  ): Promise<RunOutcome> {
    const job = await this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      const { state } = activation;
      if (state.phase === "awaiting_children" && state.run_id) {
        const wake = this.#events.nextStop(agentId, state.run_id);
        return { kind: "sleeping" as const, runId: state.run_id, wake };
      }
      const turn = withMaxSteps(activation.agent, options.maxSteps);
      const result = await this.#turns.run(activation, (deps) =>
        submitApprovals(turn, activation.state, decisions, deps),
      );
      return this.#settle(activation, result, true);
    });
    // A parent that sleeps passes each answer to the sub-agent that asked.
    if (job.kind === "sleeping") await this.#answerBelow(agentId, decisions);
    return this.#outcome(agentId, job);
  }

  async resume(agentId: string): Promise<RunOutcome> {
    const job = await this.#dispatcher.submit(agentId, async (activation) => {
      const recovered = await this.#recover(activation);
      if (recovered) return recovered;
      const result = await this.#turns.run(activation, (deps) =>
        resumeSession(activation.agent, activation.state, deps),
      );
      return this.#settle(activation, result, true);
    });
    return this.#outcome(agentId, job);
  }

  async awaitRun(agentId: string, runId: string): Promise<RunOutcome> {
    const { store } = this.options;
    const controller = new AbortController();
    const stop = this.#events.nextStop(agentId, runId, controller.signal);
    try {
      if (!(await stoppedForCaller(store, agentId, runId))) await stop;
    } finally {
      controller.abort();
    }
    return storedOutcome(store, agentId, runId);
  }

  async cancel(agentId: string): Promise<boolean> {
    const live = this.#live.get(agentId);
    let cancelled = false;
    if (live?.controller) {
      live.controller.abort(new Error("cancelled"));
      cancelled = true;
    }
    const state = await this.options.store.loadSession(agentId);
    if (state?.phase !== "awaiting_children" && state?.phase !== "awaiting_approval")
      return cancelled;
    // The parent first: a child that ends now must find it no longer waiting, not carry it on.
    await this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      const { phase } = activation.state;
      if (phase !== "awaiting_children" && phase !== "awaiting_approval") return;
      const result = await this.#turns.run(activation, (deps) =>
        cancelTurn(activation.agent, activation.state, deps),
      );
      this.#settle(activation, result, false);
    });
    await Promise.all(
      childTasks(state).map((child) => this.cancel(child.childId).catch(() => false)),
    );
    return true;
  }

  session(agentId: string): Promise<SessionState> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      return activation.state;
    });
  }

  transferSession(sourceId: string, sessionId: string, targetId: string): Promise<SessionState> {
    return this.#sessions.transfer(sourceId, sessionId, targetId);
  }

  updateAgent(agentId: string, change: AgentChange): Promise<AgentRecord> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.ensureFresh(activation);
      const record = await this.options.store.getAgent(agentId);
      if (!record) throw new NotFoundError("agent", agentId);
      const updated = applyAgentChange(record, change, this.options.clock.now());
      await this.options.store.updateAgent(updated);
      await reloadActivation(activation, this.options);
      return updated;
    });
  }

  editBlocks(agentId: string, edit: BlockEdit): Promise<CoreBlock[]> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.ensureFresh(activation);
      const { store } = this.options;
      const write = applyBlockEdit(await store.loadBlocks(agentId), edit);
      if ("put" in write) await store.putBlock(agentId, write.put);
      else await store.deleteBlock(agentId, write.delete);
      return store.loadBlocks(agentId);
    });
  }

  async forget(agentId: string): Promise<void> {
    await this.cancel(agentId);
  }

  subscribe(agentId: string, listener: AgentEventListener): () => void {
    return this.#events.subscribe(agentId, listener);
  }

  async shutdown(): Promise<void> {
    this.#stopping = true;
    this.#timers.stop();
    await this.#dispatcher.shutdown();
  }

  /**
   * After a turn: a run that sleeps for its children gets them going; a child whose run stopped
   * tells its parent. With `wait`, a sleeping run also gives the caller a promise of its stop.
   */
  #settle(activation: Activation, result: TurnResult, wait: boolean): Settled {
    const agentId = activation.record.id;
    const { state } = result;
    if (state.phase === "awaiting_children" && state.run_id) {
      const wake = wait ? this.#events.nextStop(agentId, state.run_id) : Promise.resolve();
      for (const child of childTasks(state)) this.#deliver(agentId, child);
      return { kind: "sleeping", runId: state.run_id, wake };
    }
    if (activation.record.parent_id) this.#tellParent(activation.record.parent_id);
    return { kind: "stopped", outcome: finishedOutcome(result) };
  }

  async #outcome(agentId: string, settled: Settled): Promise<RunOutcome> {
    if (settled.kind === "stopped") return settled.outcome;
    await settled.wake;
    return storedOutcome(this.options.store, agentId, settled.runId);
  }

  /** Sends a child its task (at most one on its way); the child's stop wakes the parent. */
  #deliver(parentId: string, child: AwaitedChild): void {
    if (this.#delivering.has(child.key) || this.#stopping) return;
    this.#delivering.add(child.key);
    this.send(child.childId, { content: child.prompt, otid: child.key })
      .then(
        // A task it had run before: its stop told nobody, so tell the parent now.
        (outcome) => (outcome.duplicate ? this.#tellParent(parentId) : undefined),
        () => this.#later(() => this.#tellParent(parentId)),
      )
      .finally(() => this.#delivering.delete(child.key));
  }

  /** Asks a parent to look at its children again (in its mailbox); retried if that fails. */
  #tellParent(parentId: string): void {
    if (this.#stopping) return;
    this.#dispatcher
      .submit(parentId, (activation) => this.#collect(activation))
      .catch(() => this.#later(() => this.#tellParent(parentId)));
  }

  #later(work: () => void): void {
    if (this.#stopping) return;
    this.options.clock.sleep(RETRY_MS).then(work, () => undefined);
  }

  /**
   * A sleeping parent takes in the answers of children whose runs ended and runs on once none is
   * left; children that never got their task get it; approvals waiting below are shown to its
   * caller as its own stop, and passed up to its parent.
   */
  async #collect(activation: Activation): Promise<Settled | null> {
    await this.#turns.ensureFresh(activation);
    const { state } = activation;
    if (state.phase !== "awaiting_children" || !state.run_id) return null;
    const agentId = activation.record.id;
    const { ready, undelivered } = await childProgress(this.options.store, state);
    for (const child of undelivered) this.#deliver(agentId, child);
    if (ready.length > 0) {
      const result = await this.#turns.run(activation, (deps) =>
        deliverChildResults(activation.agent, activation.state, ready, deps),
      );
      return this.#settle(activation, result, true);
    }
    const approvals = await approvalsBelow(this.options.store, agentId);
    if (approvals.length > 0) {
      const runId = state.run_id;
      for (const { agentId: from, message } of approvals) {
        this.#events.publish({ type: "message", message, agentId, runId, from });
      }
      this.#events.publish({ type: "stop", stop_reason: "requires_approval", agentId, runId });
      this.#events.publish({ type: "usage", usage: state.usage, agentId, runId });
      if (activation.record.parent_id) this.#tellParent(activation.record.parent_id);
    }
    return {
      kind: "sleeping",
      runId: state.run_id,
      wake: this.#events.nextStop(agentId, state.run_id),
    };
  }

  /** An interrupted turn finishes; a sleeping one re-drives its children. Null if neither. */
  async #recover(activation: Activation): Promise<Settled | null> {
    await this.#turns.finishInterrupted(activation);
    return this.#collect(activation);
  }

  /** Passes each decision to the sub-agent below whose approval it answers. */
  async #answerBelow(agentId: string, decisions: readonly ApprovalDecision[]): Promise<void> {
    const owners = new Map(
      (await approvalsBelow(this.options.store, agentId)).map((a) => [
        a.message.tool_call.tool_call_id,
        a.agentId,
      ]),
    );
    const byAgent = new Map<string, ApprovalDecision[]>();
    const errors = decisions.flatMap((decision, i) => {
      const owner = owners.get(decision.tool_call_id);
      if (!owner) {
        const message = `no approval is pending for '${decision.tool_call_id}'`;
        return [{ path: `approvals.${i}.tool_call_id`, message }];
      }
      byAgent.set(owner, [...(byAgent.get(owner) ?? []), decision]);
      return [];
    });
    if (errors.length > 0) throw new ValidationError("invalid approvals", errors);
    await Promise.all([...byAgent].map(([owner, answers]) => this.approve(owner, answers)));
  }

  async #onTimer(activation: Activation): Promise<void> {
    await this.#turns.ensureFresh(activation);
    const { state } = activation;
    const due = (at: number | null) => at !== null && at <= this.options.clock.now();
    let result: TurnResult | null = null;
    if (state.phase === "paused" && due(state.pause_until_ms)) {
      result = await this.#turns.run(activation, (deps) =>
        wakeFromPause(activation.agent, state, deps),
      );
    } else if (state.phase === "awaiting_approval" || state.phase === "running") {
      result = await this.#turns.run(activation, (deps) =>
        resumeSession(activation.agent, state, deps),
      );
    }
    if (result) this.#settle(activation, result, false);
    // Whatever happened, the stored timers now match the session (cleared if none is due).
    await this.#timers.schedule(activation.record.id, activation.state);
  }
}
