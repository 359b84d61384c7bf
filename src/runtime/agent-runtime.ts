import type { LoopEvent } from "../agent/events.js";
import { DEFAULT_HISTORY_LIMIT } from "../agent/perform-step.js";
import {
  type LoopDeps,
  resumeSession,
  sendUserMessage,
  submitApprovals,
  type TurnAgent,
  type TurnResult,
  wakeFromPause,
} from "../agent/run-turn.js";
import type { Clock } from "../core/clock.js";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { RunRecord } from "../records/agent-record.js";
import type { AgentMessage, ApprovalDecision } from "../records/messages.js";
import { newSessionState, type SessionState } from "../records/session-state.js";
import {
  type Activation,
  type ActivationSources,
  loadActivation,
  loadHistory,
  reloadActivation,
} from "./activation.js";
import { BusyError } from "./busy-error.js";
import { Dispatcher } from "./dispatcher.js";
import { prepareHandoff } from "./session-handoff.js";
import { TimerLoop } from "./timer-loop.js";

export interface RuntimeOptions extends ActivationSources {
  readonly clock: Clock;
  /** Told of every activation and deactivation: for tests that check single activation. */
  readonly observe?: { activated(agentId: string): void; deactivated(agentId: string): void };
  readonly maxActivations?: number;
  readonly mailboxCapacity?: number;
  readonly idleMs?: number;
}

export interface RunOptions {
  onEvent?: (event: LoopEvent) => void;
  /** Fewer model calls than the agent's limit, for this turn only (Letta's `max_steps`). */
  maxSteps?: number;
}

/** What a message to an agent came to. `duplicate` marks a retry answered from the first run. */
export type Outcome =
  | { duplicate: false; result: TurnResult }
  | { duplicate: true; run: RunRecord };

/** A new message while an approval waits: Letta's 409 PENDING_APPROVAL. */
export class PendingApprovalError extends ConflictError {
  override readonly code = "PENDING_APPROVAL";
  constructor(readonly pendingRequestIds: string[]) {
    super("an approval is pending: answer it before sending a new message");
  }
}

/**
 * Agents as virtual actors over a store: every operation goes through the dispatcher, so an
 * agent has one activation and runs one thing at a time; every step of every turn is
 * committed; interrupted sessions resume on activation and at start-up; timers wake paused
 * sessions and expire approvals, after a restart too.
 */
export class AgentRuntime {
  readonly #dispatcher: Dispatcher<Activation>;
  readonly #timers: TimerLoop;
  /** The activations alive now, for cancel, which must not wait in the mailbox. */
  readonly #live = new Map<string, Activation>();

  constructor(private readonly options: RuntimeOptions) {
    this.#dispatcher = new Dispatcher<Activation>({
      maxActivations: options.maxActivations ?? 10_000,
      mailboxCapacity: options.mailboxCapacity ?? 100,
      idleMs: options.idleMs ?? 5 * 60_000,
      clock: options.clock,
      activate: (agentId) => this.#activate(agentId),
      deactivate: async (agentId) => {
        this.#live.delete(agentId);
        options.observe?.deactivated(agentId);
      },
    });
    this.#timers = new TimerLoop(options.store, options.clock, (timer) =>
      this.#dispatcher.submit(timer.agent_id, (activation) => this.#runOnTimer(activation)),
    );
  }

  get activeCount(): number {
    return this.#dispatcher.activeCount;
  }

  /** Starts the timers and resumes every session a crash interrupted; returns those that failed. */
  async start(): Promise<{ agentId: string; error: unknown }[]> {
    this.#timers.start();
    const interrupted = await this.options.store.interruptedSessions();
    const resumed = await Promise.allSettled(interrupted.map((agentId) => this.resume(agentId)));
    // One agent that cannot resume (its type was removed, say) must not keep the rest down;
    // it resumes when it is next used, and the caller reports it.
    return resumed.flatMap((result, i) =>
      result.status === "rejected" ? [{ agentId: interrupted[i] ?? "", error: result.reason }] : [],
    );
  }

  /** Sends a user message; a message whose `otid` was seen before is not run again. */
  sendMessage(
    agentId: string,
    input: { content: string; otid?: string | null },
    run: RunOptions = {},
  ) {
    return this.#dispatcher.submit(agentId, async (activation): Promise<Outcome> => {
      // The interrupted turn finishes first, so a retry is answered from a finished run.
      await this.#finishInterrupted(activation);
      if (input.otid) {
        const seen = await this.options.store.findRunByKey(agentId, input.otid);
        if (seen) return { duplicate: true, run: seen };
      }
      if (activation.state.phase === "awaiting_approval") {
        const waiting = activation.state.pending.filter((c) => c.status === "awaiting_approval");
        throw new PendingApprovalError(waiting.map((c) => c.tool_call.tool_call_id));
      }
      const result = await this.#run(activation, run, (deps) =>
        sendUserMessage(
          withMaxSteps(activation.agent, run.maxSteps),
          activation.state,
          input,
          deps,
        ),
      );
      return { duplicate: false, result };
    });
  }

  /** Answers the approvals an agent waits for; the turn runs on. */
  submitApprovals(agentId: string, decisions: readonly ApprovalDecision[], run: RunOptions = {}) {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#finishInterrupted(activation);
      return this.#run(activation, run, (deps) =>
        submitApprovals(activation.agent, activation.state, decisions, deps),
      );
    });
  }

  /** Carries an agent's session on from its checkpoint (after a crash, or an expired approval). */
  resume(agentId: string, run: RunOptions = {}) {
    return this.#dispatcher.submit(agentId, (activation) =>
      this.#run(activation, run, (deps) => resumeSession(activation.agent, activation.state, deps)),
    );
  }

  /** Cancels the run in progress, if any; it stops at its next step with `cancelled`. */
  cancel(agentId: string): boolean {
    const activation = this.#live.get(agentId);
    if (!activation?.controller) return false;
    activation.controller.abort(new Error("cancelled"));
    return true;
  }

  /** The agent's session checkpoint as it is now (after any interrupted turn finished). */
  session(agentId: string): Promise<SessionState> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#finishInterrupted(activation);
      return activation.state;
    });
  }

  /**
   * Hands a session over to another agent (the seed's handoff): the target takes the session's
   * checkpoint and a copy of its current run's messages and carries on from there; the source
   * starts a fresh session. The target must be idle. The target is written before the source is
   * reset, so a crash in between leaves the session in both places, never in neither.
   */
  async transferSession(
    sourceId: string,
    sessionId: string,
    targetId: string,
  ): Promise<SessionState> {
    if (sourceId === targetId) throw new ConflictError("an agent cannot take over its own session");
    const {
      state,
      messages,
      run,
      source: held,
    } = await this.#dispatcher.submit(sourceId, async (source) => {
      await this.#finishInterrupted(source);
      if (source.state.session_id !== sessionId) throw new NotFoundError("session", sessionId);
      const runId = source.state.run_id;
      const ofRun = runId
        ? source.history.recent(DEFAULT_HISTORY_LIMIT).filter((m) => m.run_id === runId)
        : [];
      const run = runId ? await this.options.store.getRun(runId) : null;
      source.handingOver = true;
      return { state: source.state, messages: ofRun, run, source };
    });
    const { store, ids } = this.options;
    let moved: SessionState;
    try {
      moved = await this.#handTo(targetId, state, messages, run);
    } catch (error) {
      held.handingOver = false;
      throw error;
    }
    await this.#dispatcher.submit(sourceId, async (source) => {
      source.handingOver = false;
      await this.#ensureFresh(source);
      const fresh = newSessionState(ids.next("session"));
      await store.commit({
        agentId: sourceId,
        state: fresh,
        messages: [],
        memory: { blocks: [], passages: [] },
      });
      source.state = fresh;
      await this.#timers.schedule(sourceId, fresh);
    });
    return moved;
  }

  /** The target's half of a handoff: it must be idle; it takes the session and its messages. */
  #handTo(
    targetId: string,
    state: SessionState,
    messages: AgentMessage[],
    run: RunRecord | null,
  ): Promise<SessionState> {
    const { store, ids } = this.options;
    return this.#dispatcher.submit(targetId, async (target) => {
      await this.#finishInterrupted(target);
      if (target.state.phase !== "idle") {
        throw new ConflictError(
          `agent ${targetId} is busy (${target.state.phase}); it must be idle to take a session`,
        );
      }
      const targetHas = target.history.recent(DEFAULT_HISTORY_LIMIT);
      const handoff = prepareHandoff({ state, messages, run, targetId, targetHas, ids });
      await store.commit({
        agentId: targetId,
        state: handoff.state,
        messages: handoff.messages,
        memory: { blocks: [], passages: [] },
        ...(handoff.run ? { run: handoff.run } : {}),
      });
      target.state = handoff.state;
      target.history.append(handoff.messages);
      await this.#timers.schedule(targetId, handoff.state);
      return handoff.state;
    });
  }

  /**
   * Runs `work` in the agent's mailbox, between its turns: for changes from outside a turn
   * (block edits over the API) that a turn in progress would otherwise overwrite.
   */
  exclusive<T>(agentId: string, work: () => Promise<T>): Promise<T> {
    return this.#dispatcher.submit(agentId, async (activation) => {
      await this.#ensureFresh(activation);
      return work();
    });
  }

  /** Reloads an active agent after its record changed (model, prompt, tools, rules). */
  async refresh(agentId: string): Promise<void> {
    if (!this.#live.has(agentId)) return;
    await this.#dispatcher.submit(agentId, (activation) =>
      reloadActivation(activation, this.options),
    );
  }

  /** Called before an agent is deleted: stops what it is doing. */
  async forget(agentId: string): Promise<void> {
    this.cancel(agentId);
  }

  /** Stops the timers, lets queued work finish, and lets every agent go. */
  async shutdown(): Promise<void> {
    this.#timers.stop();
    await this.#dispatcher.shutdown();
  }

  async #activate(agentId: string): Promise<Activation> {
    const activation = await loadActivation(agentId, this.options);
    this.#live.set(agentId, activation);
    this.options.observe?.activated(agentId);
    return activation;
  }

  async #run(
    activation: Activation,
    run: RunOptions,
    turn: (deps: LoopDeps) => Promise<TurnResult>,
  ): Promise<TurnResult> {
    // First, so that the deps below see the reloaded history, not one a failure left behind.
    await this.#ensureFresh(activation);
    const before = activation.state;
    const controller = new AbortController();
    const deps: LoopDeps = {
      model: activation.model,
      tools: activation.tools,
      store: this.options.store,
      clock: this.options.clock,
      ids: this.options.ids,
      workspace: activation.workspace,
      history: activation.history,
      signal: controller.signal,
      ...(run.onEvent ? { onEvent: run.onEvent } : {}),
    };
    activation.controller = controller;
    activation.runDeps = deps;
    try {
      const result = await turn(deps);
      activation.state = result.state;
      await this.#timers.schedule(activation.record.id, result.state, before);
      return result;
    } catch (error) {
      // What was committed is the truth; the next operation reloads it before anything else.
      // (Reloading here could fail too, and a stale state would then run steps again.)
      activation.stale = true;
      throw error;
    } finally {
      activation.controller = null;
      activation.runDeps = null;
    }
  }

  /** Reloads what a failed run may have left behind in memory; refuses work mid-handover. */
  async #ensureFresh(activation: Activation): Promise<void> {
    if (activation.handingOver) {
      throw new BusyError(`agent ${activation.record.id} is handing its session over`, 200);
    }
    if (!activation.stale) return;
    const { store, ids } = this.options;
    activation.state =
      (await store.loadSession(activation.record.id)) ?? newSessionState(ids.next("session"));
    activation.history = await loadHistory(store, activation.record.id);
    activation.stale = false;
  }

  /** A turn a crash interrupted finishes before anything new starts on the agent. */
  async #finishInterrupted(activation: Activation): Promise<void> {
    await this.#ensureFresh(activation);
    if (activation.state.phase !== "running") return;
    await this.#run(activation, {}, (deps) =>
      resumeSession(activation.agent, activation.state, deps),
    );
  }

  async #runOnTimer(activation: Activation): Promise<void> {
    await this.#ensureFresh(activation);
    const { state } = activation;
    const due = (at: number | null) => at !== null && at <= this.options.clock.now();
    if (state.phase === "paused" && due(state.pause_until_ms)) {
      await this.#run(activation, {}, (deps) => wakeFromPause(activation.agent, state, deps));
    } else if (state.phase === "awaiting_approval" || state.phase === "running") {
      await this.#run(activation, {}, (deps) => resumeSession(activation.agent, state, deps));
    }
    // Whatever happened, the stored timers now match the session (cleared if none is due).
    await this.#timers.schedule(activation.record.id, activation.state);
  }
}

/** The agent with its iteration limit lowered for one turn; never raised past its type's. */
function withMaxSteps(agent: TurnAgent, maxSteps: number | undefined): TurnAgent {
  const limits = agent.config.capabilities.limits;
  if (maxSteps === undefined || maxSteps >= limits.max_iterations) return agent;
  const capabilities = {
    ...agent.config.capabilities,
    limits: { ...limits, max_iterations: maxSteps },
  };
  return { ...agent, config: { ...agent.config, capabilities } };
}
