import type { CompactRequest, CompactResult } from "../../agent/compact-now.js";
import { ConflictError } from "../../core/errors.js";
import type { IdSource } from "../../core/ids.js";
import type { BlockEdit } from "../../memory/block-edit.js";
import type { AgentChange } from "../../records/agent-change.js";
import type { AgentRecord } from "../../records/agent-record.js";
import type { CoreBlock } from "../../records/memory-records.js";
import type { ApprovalDecision } from "../../records/messages.js";
import type { SessionState } from "../../records/session-state.js";
import type { Store } from "../../storage/store.js";
import type { ToolResult } from "../../tools/tool.js";
import type { AgentEventListener } from "../agent-events.js";
import type { Engine, MessageInput, ResumeFailure, RunOutcome, SendOptions } from "../engine.js";
import { stoppedForCaller, storedOutcome } from "../outcomes.js";
import type { Job } from "../sub-agent-driver.js";
import { HANDOFF, type TransferRequest } from "./handoff-service.js";
import { Ingress } from "./ingress.js";
import { EventListener } from "./pg-events.js";
import { unwire, type Wire } from "./wire.js";

/** How long `send` waits at most for a run's last event after its answer. */
const LAST_EVENT_WAIT_MS = 2_000;

export interface RestateEngineOptions {
  /** The PostgreSQL store the workers write (the API reads runs and messages from it). */
  readonly store: Store;
  readonly pgUrl: string;
  readonly schema: string;
  /** Restate's ingress, e.g. `http://127.0.0.1:8080`. */
  readonly ingressUrl: string;
  readonly ids: IdSource;
  /** How often a wait for a run's stop looks at the store too (a lost event costs this). */
  readonly pollMs?: number;
}

/**
 * The engine of an API process when agents run as Restate virtual objects on workers: every
 * operation is a call to the agent's object through Restate's ingress; events come from the
 * workers over PostgreSQL LISTEN/NOTIFY. The API process holds no agent state, so any number
 * of them serve the same agents.
 */
export class RestateEngine implements Engine {
  readonly #ingress: Ingress;
  /** Per agent, the last call handed to Restate (see `#inOrder`). */
  readonly #calls = new Map<string, Promise<void>>();
  readonly #pollMs: number;

  private constructor(
    private readonly options: RestateEngineOptions,
    private readonly listener: EventListener,
  ) {
    this.#ingress = new Ingress(options.ingressUrl);
    this.#pollMs = options.pollMs ?? 1_000;
  }

  static async open(options: RestateEngineOptions): Promise<RestateEngine> {
    const listener = await EventListener.open(options.pgUrl, options.schema, options.store);
    return new RestateEngine(options, listener);
  }

  /** Nothing to resume here: Restate carries on every invocation a crash interrupted. */
  async start(): Promise<ResumeFailure[]> {
    return [];
  }

  async shutdown(): Promise<void> {
    this.#ingress.close();
    await this.listener.close();
  }

  async send(agentId: string, input: MessageInput, options: SendOptions = {}): Promise<RunOutcome> {
    const { store, ids } = this.options;
    if (input.otid) {
      const seen = await store.findRunByKey(agentId, input.otid);
      // Answered from its first run, once that run has stopped (as the embedded engine does).
      if (seen) return { ...(await this.awaitRun(agentId, seen.id)), duplicate: true };
    }
    // The run's id is chosen here, so a retried invocation finds the run it started.
    const runId = options.runId ?? ids.next("run");
    // A subscriber hears the whole run before `send` answers: its last event is awaited.
    const heard = this.#lastEvent(agentId, runId);
    try {
      const outcome = await this.#send(agentId, input, options, runId);
      await heard.done;
      return outcome;
    } finally {
      heard.cancel();
    }
  }

  async #send(
    agentId: string,
    input: MessageInput,
    options: SendOptions,
    runId: string,
  ): Promise<RunOutcome> {
    let behind: string | null = null;
    for (;;) {
      // The otid is the invocation's idempotency key; behind a sleeping run it is a new one.
      const key: string | undefined = input.otid
        ? behind
          ? `${input.otid}@${behind}`
          : input.otid
        : undefined;
      const body = { input, options: { ...options, runId } };
      const job: Job = unwire(
        await this.#inOrder(agentId, () =>
          this.#ingress.call<Wire<Job>>(agentId, "send", body, key),
        ),
      );
      if (job.kind !== "queued") return this.#follow(agentId, job);
      // Another run sleeps until its sub-agents end: this message goes once it has stopped.
      await this.awaitRun(agentId, job.runId);
      behind = job.runId;
    }
  }

  /**
   * Calls for one agent go to Restate one after another, in the order this process took them:
   * concurrent ingress calls could reach Restate's mailbox in any order, and the embedded
   * engine answers messages in the order they arrived. The agent runs one at a time anyway.
   */
  #inOrder<T>(agentId: string, call: () => Promise<T>): Promise<T> {
    const before = this.#calls.get(agentId) ?? Promise.resolve();
    const mine = before.then(call);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#calls.set(agentId, settled);
    void settled.then(() => {
      if (this.#calls.get(agentId) === settled) this.#calls.delete(agentId);
    });
    return mine;
  }

  async approve(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options: SendOptions = {},
  ): Promise<RunOutcome> {
    const body = { decisions, options };
    return this.#follow(
      agentId,
      unwire(await this.#ingress.call<Wire<Job>>(agentId, "approve", body)),
    );
  }

  async resume(agentId: string): Promise<RunOutcome> {
    return this.#follow(
      agentId,
      unwire(await this.#ingress.call<Wire<Job>>(agentId, "resume", null)),
    );
  }

  async cancel(agentId: string): Promise<boolean> {
    return unwire(await this.#ingress.call<Wire<boolean>>(agentId, "cancel", null));
  }

  async awaitRun(agentId: string, runId: string): Promise<RunOutcome> {
    const { store } = this.options;
    const controller = new AbortController();
    const stop = this.listener.events.nextStop(agentId, runId, controller.signal);
    try {
      // A stop event, or the store saying so (an event lost with a connection is not waited for).
      while (!(await stoppedForCaller(store, agentId, runId))) {
        const poll = new Promise((resolve) => setTimeout(resolve, this.#pollMs).unref());
        if ((await Promise.race([stop, poll.then(() => undefined)])) !== undefined) break;
      }
    } finally {
      controller.abort();
    }
    return storedOutcome(store, agentId, runId);
  }

  async session(agentId: string): Promise<SessionState> {
    return unwire(await this.#ingress.call<Wire<SessionState>>(agentId, "session", null));
  }

  async endSession(agentId: string, sessionId: string): Promise<SessionState> {
    const body = { sessionId };
    return unwire(await this.#ingress.call<Wire<SessionState>>(agentId, "endSession", body));
  }

  async transferSession(
    sourceId: string,
    sessionId: string,
    targetId: string,
  ): Promise<SessionState> {
    if (sourceId === targetId) throw new ConflictError("an agent cannot take over its own session");
    const body: TransferRequest = { sourceId, sessionId, targetId };
    return unwire(await this.#ingress.callService<Wire<SessionState>>(HANDOFF, "transfer", body));
  }

  async updateAgent(agentId: string, change: AgentChange): Promise<AgentRecord> {
    return unwire(await this.#ingress.call<Wire<AgentRecord>>(agentId, "updateAgent", change));
  }

  async editBlocks(agentId: string, edit: BlockEdit): Promise<CoreBlock[]> {
    return unwire(await this.#ingress.call<Wire<CoreBlock[]>>(agentId, "editBlocks", edit));
  }

  async compact(agentId: string, request: CompactRequest): Promise<CompactResult> {
    return unwire(await this.#ingress.call<Wire<CompactResult>>(agentId, "compact", request));
  }

  async runTool(agentId: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const body = { name, args };
    return unwire(await this.#ingress.call<Wire<ToolResult>>(agentId, "runTool", body));
  }

  async deleteAgent(agentId: string): Promise<boolean> {
    // A turn at work would hold the mailbox the deletion queues in: it is stopped first.
    await this.cancel(agentId).catch(() => false);
    return unwire(await this.#ingress.call<Wire<boolean>>(agentId, "deleteAgent", null));
  }

  subscribe(agentId: string, listener: AgentEventListener): () => void {
    return this.listener.events.subscribe(agentId, listener);
  }

  /**
   * Resolves when the run's `usage` event (its last) has come, if anyone listens to the agent;
   * at once otherwise, and after a short while at most (the events are a courtesy of the stream,
   * the outcome is in the store).
   */
  #lastEvent(agentId: string, runId: string): { done: Promise<void>; cancel(): void } {
    const { events } = this.listener;
    if (!events.listening(agentId)) return { done: Promise.resolve(), cancel: () => undefined };
    let cancel = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LAST_EVENT_WAIT_MS);
      const unsubscribe = events.subscribe(agentId, (event) => {
        if (event.type === "usage" && event.runId === runId) resolve();
      });
      cancel = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
    }).finally(() => cancel());
    return { done, cancel: () => cancel() };
  }

  /** The outcome of a job: at once if its run stopped in it, else once the run stops. */
  async #follow(agentId: string, job: Job): Promise<RunOutcome> {
    if (job.kind === "stopped") return job.outcome;
    if (job.kind === "duplicate") {
      const stored = await storedOutcome(this.options.store, agentId, job.runId);
      return { ...stored, duplicate: true };
    }
    return this.awaitRun(agentId, job.runId);
  }
}
