import { deliverChildResults, type TurnResult } from "../agent/run-turn.js";
import { HoldfastError, InvalidApprovalError } from "../core/errors.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { Activation } from "./activation.js";
import type { AgentEvents } from "./agent-events.js";
import type { Dispatcher } from "./dispatcher.js";
import type { MessageInput, RunOutcome } from "./engine.js";
import { finishedOutcome } from "./outcomes.js";
import { type AwaitedChild, approvalsBelow, childProgress, childTasks } from "./sub-agents.js";
import type { AgentRoute, EngineOptions, Turns } from "./turns.js";

/** How a job on an agent left its run: stopped for the caller, or sleeping for its children. */
export type Settled =
  | { kind: "stopped"; outcome: RunOutcome }
  | { kind: "sleeping"; runId: string; wake: Promise<unknown> };

/**
 * What a job on an agent came to, as data (it crosses processes in the Restate engine): the run
 * stopped for its caller; it sleeps for its children (its stop comes as an event); the message
 * was a retried one; or it queues behind a sleeping run (send again once that run stops).
 */
export type Job =
  | { kind: "stopped"; outcome: RunOutcome }
  | { kind: "sleeping" | "duplicate" | "queued"; runId: string };

export function jobOf(settled: Settled): Job {
  return settled.kind === "stopped" ? settled : { kind: "sleeping", runId: settled.runId };
}

/** What the driver uses of its engine. */
export interface DriverParts {
  readonly options: EngineOptions;
  readonly dispatcher: Dispatcher<Activation>;
  readonly turns: Turns;
  readonly events: AgentEvents;
  send(agentId: string, input: MessageInput): Promise<RunOutcome>;
  approve(agentId: string, decisions: readonly ApprovalDecision[]): Promise<RunOutcome>;
  cancel(agentId: string): Promise<boolean>;
  /** Reaches other agents through their own mailboxes elsewhere (the Restate engine). */
  route?: AgentRoute;
}

const RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
const CANCEL_ATTEMPTS = 5;

/**
 * Moves parents and their sub-agents along: a parent that sleeps gets its children's tasks
 * delivered, a child whose run stops wakes its parent, and a woken parent takes in the answers
 * of children whose runs ended. Every step reads committed state and is safe to repeat, so a
 * crash between any two of them loses and duplicates nothing; a restart repeats what is left.
 */
export class SubAgentDriver {
  /** Children's tasks on their way to a child's mailbox, so a task is never queued twice. */
  readonly #delivering = new Set<string>();
  #stopping = false;

  constructor(private readonly parts: DriverParts) {}

  stop(): void {
    this.#stopping = true;
  }

  /**
   * After a turn: a run that sleeps for its children gets them going; a child whose run stopped
   * tells its parent. With `wait`, a sleeping run also gives the caller a promise of its stop.
   */
  settle(activation: Activation, result: TurnResult, wait: boolean): Settled {
    const agentId = activation.record.id;
    const { state } = result;
    if (state.phase === "awaiting_children" && state.run_id) {
      const wake = wait ? this.parts.events.nextStop(agentId, state.run_id) : Promise.resolve();
      for (const child of childTasks(state)) this.#deliver(agentId, child);
      return { kind: "sleeping", runId: state.run_id, wake };
    }
    if (activation.record.parent_id) this.tellParent(activation.record.parent_id);
    return { kind: "stopped", outcome: finishedOutcome(result) };
  }

  /**
   * A sleeping parent takes in the answers of children whose runs ended and runs on once none is
   * left; children that never got their task get it; approvals waiting below are shown to its
   * caller as its own stop, and passed up to its parent. Null if the agent does not sleep.
   */
  async collect(activation: Activation, wait: boolean, deep = false): Promise<Settled | null> {
    const { turns, options, events } = this.parts;
    // A turn a failure interrupted (a child's, say, carrying on with its own children's
    // answers) finishes first: nothing else would ever resume it before a restart.
    await turns.finishInterrupted(activation);
    const { state } = activation;
    if (state.phase !== "awaiting_children" || !state.run_id || activation.cancelling) return null;
    const agentId = activation.record.id;
    const { ready, undelivered, running } = await childProgress(options.store, state);
    for (const child of undelivered) this.#deliver(agentId, child);
    // Recovering: a child whose run was cut short carries it on (and so on down the tree).
    if (deep) for (const child of running) this.#recoverChild(child.childId);
    if (ready.length > 0) {
      const result = await turns.run(activation, (deps) =>
        deliverChildResults(activation.agent, activation.state, ready, deps),
      );
      return this.settle(activation, result, wait);
    }
    const runId = state.run_id;
    const approvals = await approvalsBelow(options.store, agentId);
    if (approvals.length > 0) {
      for (const { agentId: from, message } of approvals) {
        events.publish({ type: "message", message, agentId, runId, from });
      }
      events.publish({ type: "stop", stop_reason: "requires_approval", agentId, runId });
      events.publish({ type: "usage", usage: state.usage, agentId, runId });
      if (activation.record.parent_id) this.tellParent(activation.record.parent_id);
      // The run has stopped for its caller just now: there is nothing more to wait for.
      return { kind: "sleeping", runId, wake: Promise.resolve() };
    }
    const wake = wait ? events.nextStop(agentId, runId) : Promise.resolve();
    return { kind: "sleeping", runId, wake };
  }

  /**
   * A sub-agent's turn failed part-way: nobody may ask it anything again (its parent only
   * waits), so it carries its interrupted turn on by itself a moment later.
   */
  failed(activation: Activation, attempt = 0): void {
    const parentId = activation.record.parent_id;
    if (!parentId) return;
    const agentId = activation.record.id;
    this.#retry(attempt, null, () => {
      const { route } = this.parts;
      (route
        ? route.collect(agentId, false)
        : this.parts.dispatcher.submit(agentId, (again) => this.collect(again, false))
      ).then(
        // The failure may have come after the run ended (a timer write): the parent looks again.
        () => this.tellParent(parentId),
        (error: unknown) => this.#retry(attempt + 1, error, (n) => this.failed(activation, n)),
      );
    });
  }

  #recoverChild(childId: string): void {
    if (this.parts.route) {
      this.parts.route.collect(childId, true).catch(() => undefined);
      return;
    }
    this.parts.dispatcher
      .submit(childId, (child) => this.collect(child, false, true))
      .catch(() => undefined);
  }

  /** Cancels a child of a cancelled parent; tried again while it fails for a passing reason. */
  /**
   * Cancels a child of a cancelled parent, trying again (with growing pauses) while it fails for
   * a passing reason; throws after the last try, so the parent is never ended before its child.
   */
  async cancelChild(childId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await (this.parts.route ?? this.parts).cancel(childId);
        return;
      } catch (error) {
        if (terminal(error) || attempt >= CANCEL_ATTEMPTS - 1) throw error;
        await this.parts.options.clock.sleep(Math.min(RETRY_MS * 2 ** attempt, MAX_RETRY_MS));
      }
    }
  }

  /** Passes each decision to the sub-agent below whose approval it answers. */
  async answerBelow(agentId: string, decisions: readonly ApprovalDecision[]): Promise<void> {
    const below = await approvalsBelow(this.parts.options.store, agentId);
    const owners = new Map(below.map((a) => [a.message.tool_call.tool_call_id, a.agentId]));
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
    if (errors.length > 0) throw new InvalidApprovalError("invalid approvals", errors);
    const to = this.parts.route ?? this.parts;
    await Promise.all([...byAgent].map(([owner, answers]) => to.approve(owner, answers)));
  }

  /** Sends a child its task (at most one on its way); the child's stop wakes the parent. */
  #deliver(parentId: string, child: AwaitedChild, attempt = 0): void {
    if (this.#delivering.has(child.key) || this.#stopping) return;
    this.#delivering.add(child.key);
    (this.parts.route ?? this.parts)
      .send(child.childId, { content: child.prompt, otid: child.key })
      .then(
        // A task it had run before: its stop told nobody, so tell the parent now.
        (outcome) => (outcome.duplicate ? this.tellParent(parentId) : undefined),
        (error: unknown) =>
          // A child that can never take its task (its type was removed, say) is an error
          // answer for the parent; anything else (a failed store write) is delivered again,
          // which first finishes the child's interrupted turn and is answered from its run.
          terminal(error)
            ? this.#failChild(parentId, child, (error as Error).message)
            : this.#retry(attempt, error, (n) => this.#deliver(parentId, child, n)),
      )
      .finally(() => this.#delivering.delete(child.key));
  }

  /** Asks a parent to look at its children again (in its mailbox); retried if that fails. */
  tellParent(parentId: string, attempt = 0): void {
    if (this.#stopping) return;
    const { route } = this.parts;
    (route
      ? route.collect(parentId, false)
      : this.parts.dispatcher.submit(parentId, (activation) => this.collect(activation, false))
    ).catch((error: unknown) => this.#retry(attempt, error, (n) => this.tellParent(parentId, n)));
  }

  /** Answers the parent's call for `child` with an error: the child could not take its task. */
  #failChild(parentId: string, child: AwaitedChild, why: string, attempt = 0): void {
    if (this.#stopping) return;
    const output = `sub-agent ${child.childId} could not take its task: ${why}`;
    this.parts.dispatcher
      .submit(parentId, async (activation) => {
        await this.parts.turns.ensureFresh(activation);
        const waiting = childTasks(activation.state).some((c) => c.key === child.key);
        if (activation.state.phase !== "awaiting_children" || !waiting) return;
        const result = await this.parts.turns.run(activation, (deps) =>
          deliverChildResults(
            activation.agent,
            activation.state,
            [{ index: child.index, result: { status: "error", output } }],
            deps,
          ),
        );
        this.settle(activation, result, false);
      })
      .catch((error: unknown) =>
        this.#retry(attempt, error, (n) => this.#failChild(parentId, child, why, n)),
      );
  }

  /**
   * Runs `work` again after a pause that doubles with each attempt (up to a minute), unless the
   * error will not go away (a dead process's store, a deleted agent) or the engine stops.
   */
  #retry(attempt: number, error: unknown, work: (attempt: number) => void): void {
    if (this.#stopping || terminal(error)) return;
    const delayMs = Math.min(RETRY_MS * 2 ** attempt, MAX_RETRY_MS);
    this.parts.options.clock.sleep(delayMs).then(
      () => work(attempt + 1),
      () => undefined,
    );
  }
}

/** An error that will not go away by trying again (a deleted agent, a removed type). */
const terminal = (error: unknown) => error instanceof HoldfastError && !error.retryable;
