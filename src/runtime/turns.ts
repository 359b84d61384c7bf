import { type CompactRequest, type CompactResult, compactNow } from "../agent/compact-now.js";
import type { LoopObserver } from "../agent/observer.js";
import { type LoopDeps, resumeSession, type TurnResult } from "../agent/run-turn.js";
import type { Clock } from "../core/clock.js";
import { NotFoundError } from "../core/errors.js";
import type { ApprovalDecision } from "../records/messages.js";
import { newSessionState } from "../records/session-state.js";
import {
  type Activation,
  type ActivationSources,
  loadHistory,
  reloadActivation,
} from "./activation.js";
import type { AgentEvents } from "./agent-events.js";
import { BusyError } from "./busy-error.js";
import type { MessageInput } from "./engine.js";
import type { TimerLoop } from "./timer-loop.js";

export interface EngineOptions extends ActivationSources {
  readonly clock: Clock;
  /** Told of every activation and deactivation: for tests that check single activation. */
  readonly observe?: { activated(agentId: string): void; deactivated(agentId: string): void };
  /** Told of every turn's model calls, tool calls and commits (metrics, traces). */
  readonly observer?: LoopObserver;
  readonly maxActivations?: number;
  /**
   * Other processes write this store too (the Restate engine's workers): every job reloads the
   * agent's record, session and history before it runs, so nothing in memory is trusted.
   */
  readonly sharedStore?: boolean;
  /** Where the engine's events go; its own in-process bus by default. */
  readonly events?: AgentEvents;
  /** How an agent reaches another agent; through this engine's own mailboxes by default. */
  readonly route?: AgentRoute;
  readonly mailboxCapacity?: number;
  readonly idleMs?: number;
}

/**
 * How one agent reaches another when they may live in other processes (the Restate engine):
 * each call lands in the other agent's own mailbox.
 */
export interface AgentRoute {
  /** Hands a sub-agent its task (its `otid` keys it); resolves once the task is on its way. */
  send(agentId: string, input: MessageInput): Promise<{ duplicate: boolean }>;
  /** Passes approval decisions to the sub-agent that asked for them. */
  approve(agentId: string, decisions: readonly ApprovalDecision[]): Promise<unknown>;
  cancel(agentId: string): Promise<boolean>;
  /** Asks an agent to look at its children again (`deep`: and recover theirs), in its mailbox. */
  collect(agentId: string, deep: boolean): Promise<void>;
}

/** What the engine adds to every turn, and hears of a turn that finished an interrupted one. */
export interface TurnHooks {
  extras(activation: Activation): Pick<LoopDeps, "onEvent" | "streaming" | "children">;
  settled(activation: Activation, result: TurnResult): void;
  /** A turn failed part-way (a store write failed, say); what it committed stands. */
  failed(activation: Activation): void;
}

/**
 * Runs turns on an activation, in its mailbox: with the engine's dependencies, cancellable,
 * with timers kept in step with the session, and reloading what a failed run left behind.
 */
export class Turns {
  constructor(
    private readonly options: EngineOptions,
    private readonly timers: TimerLoop,
    private readonly hooks: TurnHooks,
  ) {}

  async run(
    activation: Activation,
    turn: (deps: LoopDeps) => Promise<TurnResult>,
  ): Promise<TurnResult> {
    // First, so that the deps below see the reloaded history, not one a failure left behind.
    await this.ensureFresh(activation);
    const controller = new AbortController();
    const deps = this.#deps(activation, controller);
    activation.controller = controller;
    try {
      const result = await turn(deps);
      activation.state = result.state;
      this.timers.notice(result.state);
      return result;
    } catch (error) {
      // What was committed is the truth; the next operation reloads it before anything else.
      // (Reloading here could fail too, and a stale state would then run steps again.)
      activation.stale = true;
      this.hooks.failed(activation);
      throw error;
    } finally {
      activation.controller = null;
    }
  }

  /** Summarises a conversation's older messages now, between runs (`agent/compact-now.ts`). */
  async compact(activation: Activation, request: CompactRequest): Promise<CompactResult> {
    await this.ensureFresh(activation);
    const controller = new AbortController();
    activation.controller = controller;
    try {
      const done = await compactNow(
        activation.agent,
        activation.state,
        request,
        this.#deps(activation, controller),
      );
      activation.state = done.state;
      return done.result;
    } finally {
      activation.controller = null;
    }
  }

  #deps(activation: Activation, controller: AbortController): LoopDeps {
    return {
      model: activation.model,
      tools: activation.tools,
      store: this.options.store,
      clock: this.options.clock,
      ids: this.options.ids,
      workspace: activation.workspace,
      history: activation.history,
      signal: controller.signal,
      ...(this.options.observer && { observer: this.options.observer }),
      ...this.hooks.extras(activation),
    };
  }

  /** Reloads what a failed run may have left behind in memory; refuses work mid-handover. */
  async ensureFresh(activation: Activation): Promise<void> {
    if (activation.handingOver) {
      throw new BusyError(`agent ${activation.record.id} is handing its session over`, 200);
    }
    // The tool catalogue changed (an MCP server connected, or was added or removed): the
    // agent's capabilities and tools are rebuilt, so the next turn offers what can run now.
    if (activation.catalogueVersion !== this.options.config.catalogue.version) {
      await reloadActivation(activation, this.options);
    }
    if (!activation.stale) return;
    const { store, ids } = this.options;
    // Stale after its deletion: nothing may run on an agent that is gone. (Reloading a shared
    // store's agent reads its record, and fails the same way.)
    if (this.options.sharedStore) await reloadActivation(activation, this.options);
    else if (!(await store.getAgent(activation.record.id)))
      throw new NotFoundError("agent", activation.record.id);
    activation.state =
      (await store.loadSession(activation.record.id)) ?? newSessionState(ids.next("session"));
    activation.history = await loadHistory(store, activation.record.id);
    activation.stale = false;
  }

  /** A turn a crash interrupted finishes before anything new starts on the agent. */
  async finishInterrupted(activation: Activation): Promise<void> {
    await this.ensureFresh(activation);
    if (activation.state.phase !== "running") return;
    const result = await this.run(activation, (deps) =>
      resumeSession(activation.agent, activation.state, deps),
    );
    this.hooks.settled(activation, result);
  }
}
