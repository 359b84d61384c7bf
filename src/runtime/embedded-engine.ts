import type { CompactRequest, CompactResult } from "../agent/compact-now.js";
import { cancelTurn, resumeSession, submitApprovals } from "../agent/run-turn.js";
import type { BlockEdit } from "../memory/block-edit.js";
import type { AgentChange } from "../records/agent-change.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { CoreBlock } from "../records/memory-records.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import { type Activation, loadActivation } from "./activation.js";
import { type AgentEventListener, AgentEvents, publisherFor } from "./agent-events.js";
import {
  editBlocksJob,
  type JobParts,
  jobOfSend,
  runToolJob,
  sendJob,
  settledOutcome,
  timerJob,
  updateAgentJob,
} from "./agent-jobs.js";
import { childSpawner } from "./child-spawner.js";
import { Dispatcher } from "./dispatcher.js";
import type { Engine, MessageInput, ResumeFailure, RunOutcome, SendOptions } from "./engine.js";
import { awaitStoredRun, storedOutcome, withMaxSteps } from "./outcomes.js";
import { SessionMover } from "./session-mover.js";
import { type Job, jobOf, type Settled, SubAgentDriver } from "./sub-agent-driver.js";
import { childTasks, orphaned } from "./sub-agents.js";
import { TimerLoop } from "./timer-loop.js";
import { type EngineOptions, Turns } from "./turns.js";

/**
 * The embedded engine: agents as virtual actors in this process over a store. Every operation
 * goes through the dispatcher, so an agent has one activation and runs one thing at a time;
 * every step is committed; interrupted sessions resume at start-up; timers wake paused sessions
 * and expire approvals. A parent that spawned sub-agents sleeps in its checkpoint until their
 * runs end: nothing waits in memory, and a restart re-drives whatever was in flight.
 */
export class EmbeddedEngine implements Engine {
  readonly #events: AgentEvents;
  readonly #dispatcher: Dispatcher<Activation>;
  readonly #timers: TimerLoop;
  readonly #turns: Turns;
  /** Moves sessions; the Restate engine runs a handoff's halves each in its own agent's mailbox. */
  readonly handoff: SessionMover;
  /** The activations alive now, for cancel, which must not wait in the mailbox. */
  readonly #live = new Map<string, Activation>();
  readonly #family: SubAgentDriver;
  readonly #parts: JobParts;

  constructor(private readonly options: EngineOptions) {
    this.#events = options.events ?? new AgentEvents();
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
      // Another process may have changed the agent since this job's last: reload it all.
      ...(options.sharedStore && {
        beforeJob: (activation: Activation) => {
          activation.stale = true;
        },
      }),
      deactivate: async (agentId) => {
        this.#live.delete(agentId);
        options.observe?.deactivated(agentId);
      },
    });
    this.#timers = new TimerLoop(options.store, options.clock, (timer) =>
      this.#dispatcher.submit(timer.agent_id, (activation) => timerJob(this.#parts, activation)),
    );
    this.#turns = new Turns(options, this.#timers, {
      extras: (activation) => ({
        onEvent: publisherFor(this.#events, activation.record.id, activation.state.run_id),
        streaming: () => this.#events.listening(activation.record.id),
        children: childSpawner(activation, options),
      }),
      settled: (activation, result) => void this.#family.settle(activation, result, false),
      failed: (activation) => this.#family.failed(activation),
    });
    this.#family = new SubAgentDriver({
      options,
      dispatcher: this.#dispatcher,
      turns: this.#turns,
      events: this.#events,
      send: (agentId, input) => this.send(agentId, input),
      approve: (agentId, decisions) => this.approve(agentId, decisions),
      cancel: (agentId) => this.cancel(agentId),
      ...(options.route && { route: options.route }),
    });
    this.handoff = new SessionMover(options, this.#dispatcher, this.#turns, this.#timers);
    this.#parts = { options, turns: this.#turns, family: this.#family, events: this.#events };
  }

  get activeCount(): number {
    return this.#dispatcher.activeCount;
  }

  get mailboxDepth(): number {
    return this.#dispatcher.mailboxDepth;
  }

  async start(): Promise<ResumeFailure[]> {
    // A database from before timers were committed with checkpoints may lack some.
    await this.options.store.reconcileWakeUps();
    this.#timers.start();
    const interrupted = await this.options.store.interruptedSessions();
    const recovered = await Promise.allSettled(
      interrupted.map((agentId) =>
        this.#dispatcher.submit(agentId, (a) => this.#recover(a, false)),
      ),
    );
    // One agent that cannot resume (its type was removed, say) must not keep the rest down;
    // it resumes when it is next used, and the caller reports it.
    return recovered.flatMap((result, i) =>
      result.status === "rejected" ? [{ agentId: interrupted[i] ?? "", error: result.reason }] : [],
    );
  }

  /**
   * Runs a message as far as it goes in the agent's mailbox, without waiting for a run that
   * sleeps (its stop comes as an event): what a Restate worker's handler does.
   */
  async sendJob(agentId: string, input: MessageInput, options: SendOptions = {}): Promise<Job> {
    return jobOfSend(await this.#sendJob(agentId, input, options, false));
  }

  /** Resolves with the run's outcome once what it committed is durable (`TurnStore.flush`). */
  async send(agentId: string, input: MessageInput, options: SendOptions = {}): Promise<RunOutcome> {
    const outcome = await this.#send(agentId, input, options);
    if (this.options.store.flush) await this.options.store.flush();
    return outcome;
  }

  #send(agentId: string, input: MessageInput, options: SendOptions): Promise<RunOutcome> {
    const job = this.#sendJob(agentId, input, options, true);
    // The common case (the run ended in this job) answers without another hop.
    return job.then(async (done) => {
      if (done.kind === "stopped") return done.outcome;
      if (done.kind === "sleeping") return settledOutcome(this.options.store, agentId, done);
      if (done.kind === "duplicate") {
        const stored = await storedOutcome(this.options.store, agentId, done.runId);
        return { ...stored, duplicate: true };
      }
      await done.wake;
      return this.#send(agentId, input, options);
    });
  }

  #sendJob(agentId: string, input: MessageInput, options: SendOptions, wait: boolean) {
    return this.#dispatcher.submit(agentId, (activation) =>
      sendJob(this.#parts, activation, input, options, wait),
    );
  }

  async approve(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options: SendOptions = {},
  ): Promise<RunOutcome> {
    const job = await this.#approveJob(agentId, decisions, options, true);
    // A parent that sleeps passes each answer to the sub-agent that asked.
    if (job.kind === "sleeping") await this.#family.answerBelow(agentId, decisions);
    return settledOutcome(this.options.store, agentId, job);
  }

  /** `approve` without waiting for a run that sleeps (see `sendJob`). */
  async approveJob(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options: SendOptions = {},
  ): Promise<Job> {
    const job = await this.#approveJob(agentId, decisions, options, false);
    if (job.kind === "sleeping") await this.#family.answerBelow(agentId, decisions);
    return jobOf(job);
  }

  #approveJob(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options: SendOptions,
    wait: boolean,
  ): Promise<Settled> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      const { state } = activation;
      if (state.phase === "awaiting_children" && state.run_id) {
        const runId = state.run_id;
        const wake = wait ? this.#events.nextStop(agentId, runId) : Promise.resolve();
        return { kind: "sleeping" as const, runId, wake };
      }
      const turn = withMaxSteps(activation.agent, options.maxSteps);
      const result = await this.#turns.run(activation, (deps) =>
        submitApprovals(turn, activation.state, decisions, deps, options.clientTools),
      );
      return this.#family.settle(activation, result, wait);
    });
  }

  async resume(agentId: string): Promise<RunOutcome> {
    return settledOutcome(this.options.store, agentId, await this.#resumeJob(agentId, true));
  }

  /** `resume` without waiting for a run that sleeps (see `sendJob`). */
  async resumeJob(agentId: string): Promise<Job> {
    return jobOf(await this.#resumeJob(agentId, false));
  }

  #resumeJob(agentId: string, wait: boolean): Promise<Settled> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      const recovered = await this.#recover(activation, wait);
      if (recovered) return recovered;
      const result = await this.#turns.run(activation, (deps) =>
        resumeSession(activation.agent, activation.state, deps),
      );
      return this.#family.settle(activation, result, wait);
    });
  }

  /** A sleeping parent takes in its children's answers (`deep`: after a crash, re-drives them). */
  collect(agentId: string, deep: boolean): Promise<void> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await (deep ? this.#recover(activation, false) : this.#family.collect(activation, false));
    });
  }

  /** A pause or an approval expiry is due (the Restate engine's timer). */
  fireTimer(agentId: string): Promise<void> {
    return this.#dispatcher.submit(agentId, (activation) => timerJob(this.#parts, activation));
  }

  /** Aborts the agent's run if it runs in this process; false if it does not. */
  abortLocal(agentId: string): boolean {
    const controller = this.#live.get(agentId)?.controller;
    controller?.abort(new Error("cancelled"));
    return controller != null;
  }

  compact(agentId: string, request: CompactRequest): Promise<CompactResult> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      return this.#turns.compact(activation, request);
    });
  }

  awaitRun(agentId: string, runId: string): Promise<RunOutcome> {
    return awaitStoredRun(this.options.store, this.#events, agentId, runId);
  }

  async cancel(agentId: string): Promise<boolean> {
    const cancelled = this.abortLocal(agentId);
    const stored = await this.options.store.loadSession(agentId);
    if (stored?.phase !== "awaiting_children" && stored?.phase !== "awaiting_approval")
      return cancelled;
    // The run stops taking its children's answers, so it cannot carry on meanwhile.
    const state = await this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      activation.cancelling = true;
      return activation.state;
    });
    // The children first, durably: a crash before the parent's end leaves no orphan, only a
    // parent that hears its children were cancelled. If a child cannot be cancelled, neither is
    // the parent: it takes its children's answers again and the cancel fails.
    try {
      await Promise.all(childTasks(state).map((child) => this.#family.cancelChild(child.childId)));
    } catch (error) {
      await this.#dispatcher.submit(agentId, async (activation) => {
        activation.cancelling = false;
      });
      this.#family.tellParent(agentId);
      throw error;
    }
    const ended = this.#dispatcher.submit(agentId, async (activation) => {
      activation.cancelling = false;
      await this.#turns.ensureFresh(activation);
      const { phase } = activation.state;
      if (phase !== "awaiting_children" && phase !== "awaiting_approval") return;
      const result = await this.#turns.run(activation, (deps) =>
        cancelTurn(activation.agent, activation.state, deps),
      );
      this.#family.settle(activation, result, false);
    });
    // If ending the parent failed, it must not wait for ever on children that have ended.
    await ended.catch((error: unknown) => {
      this.#family.tellParent(agentId, 1);
      throw error;
    });
    await this.#stopOrphans(agentId);
    return true;
  }

  /**
   * After the agent's deletion, a run a queued message started meanwhile stops and its waiters
   * hear so (in the mailbox, after any job already waiting); later work finds the agent gone.
   */
  async #forget(agentId: string): Promise<void> {
    const live = this.#live.get(agentId);
    live?.controller?.abort(new Error("deleted"));
    if (live) live.stale = true;
    await this.#dispatcher
      .submit(agentId, async (activation) => {
        activation.stale = true;
        const { phase, run_id: runId } = activation.state;
        if (phase === "idle" || !runId) return;
        this.#events.publish({ type: "stop", stop_reason: "cancelled", agentId, runId });
      })
      .catch(() => undefined); // It could not activate: it is gone, and nobody waits for it.
  }

  /**
   * Once the parent no longer waits (its end committed, or deleted), a child's task that passed
   * the "still wanted?" check before that may have started since; each child's mailbox runs
   * this after any such task, so it is cancelled now, and any later task is refused.
   */
  async #stopOrphans(parentId: string): Promise<void> {
    const children = await this.options.store.listChildren(parentId);
    await Promise.all(
      children.map(async (child) => {
        const live = this.#live.get(child.id);
        if (live?.controller && (await orphaned(this.options.store, live)))
          live.controller.abort(new Error("cancelled"));
        await this.#dispatcher.submit(child.id, (a) => this.#recover(a, false));
      }),
    );
  }

  session(agentId: string): Promise<SessionState> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#turns.finishInterrupted(activation);
      return activation.state;
    });
  }

  endSession(agentId: string, sessionId: string): Promise<SessionState> {
    return this.handoff.end(agentId, sessionId);
  }

  transferSession(sourceId: string, sessionId: string, targetId: string): Promise<SessionState> {
    return this.handoff.transfer(sourceId, sessionId, targetId);
  }

  updateAgent(agentId: string, change: AgentChange): Promise<AgentRecord> {
    return this.#dispatcher.submit(agentId, (a) => updateAgentJob(this.#parts, a, change));
  }

  editBlocks(agentId: string, edit: BlockEdit): Promise<CoreBlock[]> {
    return this.#dispatcher.submit(agentId, (a) => editBlocksJob(this.#parts, a, edit));
  }

  runTool(agentId: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.#dispatcher.submit(agentId, (a) => runToolJob(this.#parts, a, name, args));
  }

  async deleteAgent(agentId: string): Promise<boolean> {
    const record = await this.options.store.getAgent(agentId);
    await this.cancel(agentId);
    const deleted = await this.options.store.deleteAgent(agentId);
    if (deleted && record?.parent_id) this.#family.tellParent(record.parent_id);
    if (deleted) {
      await this.#forget(agentId);
      await this.#stopOrphans(agentId);
      // After the record: a crash in between leaves files of no agent, never an agent without.
      if (record) await this.options.dropWorkspace?.(record);
    }
    return deleted;
  }

  subscribe(agentId: string, listener: AgentEventListener): () => void {
    return this.#events.subscribe(agentId, listener);
  }

  async shutdown(): Promise<void> {
    this.#family.stop();
    this.#timers.stop();
    await this.#dispatcher.shutdown();
  }

  /** An interrupted turn finishes; a sleeping one re-drives its children. Null if neither. */
  async #recover(activation: Activation, wait: boolean): Promise<Settled | null> {
    await this.#turns.finishInterrupted(activation);
    if (await orphaned(this.options.store, activation)) {
      // Its parent stopped waiting (cancelled) and a crash came before this child heard.
      activation.cancelling = true;
      const children = childTasks(activation.state);
      await Promise.all(children.map((child) => this.#family.cancelChild(child.childId)));
      activation.cancelling = false;
      const result = await this.#turns.run(activation, (deps) =>
        cancelTurn(activation.agent, activation.state, deps),
      );
      return this.#family.settle(activation, result, false);
    }
    return this.#family.collect(activation, wait, true);
  }
}
