import * as restate from "@restatedev/restate-sdk";
import type { CompactRequest } from "../../agent/compact-now.js";
import type { Clock } from "../../core/clock.js";
import { derivedId } from "../../core/ids.js";
import type { BlockEdit } from "../../memory/block-edit.js";
import type { AgentChange } from "../../records/agent-change.js";
import type { ApprovalDecision } from "../../records/messages.js";
import { wakeUpsOf } from "../../records/session-state.js";
import type { Store } from "../../storage/store.js";
import { BusyError } from "../busy-error.js";
import type { EmbeddedEngine } from "../embedded-engine.js";
import type { MessageInput, SendOptions } from "../engine.js";
import type { HeldSession } from "../session-mover.js";
import type { Job } from "../sub-agent-driver.js";
import type { AgentRoute } from "../turns.js";
import { inAttempt } from "./fenced-store.js";
import { AGENT_OBJECT } from "./ingress.js";
import { toWire, type Wire } from "./wire.js";

/** What a worker's handlers run on: an embedded engine over the shared PostgreSQL store. */
export interface WorkerParts {
  readonly engine: EmbeddedEngine;
  readonly store: Store;
  readonly clock: Clock;
  /** How an agent reaches another (through the ingress). */
  readonly route: AgentRoute;
  /** Awaited before each operation (see `WorkerOptions.beforeJob`). */
  beforeJob(): Promise<void>;
  /** Resolves once the events published so far are sent (before a handler answers). */
  flushEvents(): Promise<void>;
  /** Tells every worker to abort the agent's run if it runs there (a NOTIFY). */
  broadcastCancel(agentId: string): Promise<void>;
}

export interface SendRequest {
  input: MessageInput;
  options?: SendOptions;
}

export interface ApproveRequest {
  decisions: ApprovalDecision[];
  options?: SendOptions;
}

/** The object's state while its session is handed over: the session's id. */
const HANDING_OVER = "handing_over";

/** A turn may take long (a slow model, a long tool): Restate must not cut it off meanwhile. */
const TURN_TIMEOUT = { minutes: 30 };

/**
 * Each agent as a Restate virtual object keyed by its id. Exclusive handlers are the agent's
 * mailbox: Restate runs one at a time per agent, across all workers, in the order they arrived.
 * A handler runs its operation in one journaled `ctx.run`; inside, the loop commits every step
 * to PostgreSQL, so a handler retried on another worker after a crash resumes from the last
 * committed step and never repeats a completed model or tool call. Timers are delayed sends
 * to the object itself. `cancel` is shared: it must reach a turn running in the mailbox.
 */
export function agentObject(parts: WorkerParts) {
  const { engine, store } = parts;
  return restate.object({
    name: AGENT_OBJECT,
    options: { inactivityTimeout: TURN_TIMEOUT, abortTimeout: TURN_TIMEOUT },
    handlers: {
      send: (ctx: restate.ObjectContext, req: SendRequest) => {
        // The run's id is fixed by the invocation: a retry finds the run it started.
        const runId = req.options?.runId ?? derivedId("run", ctx.request().id);
        const options = { ...req.options, runId };
        return exclusive(ctx, parts, "send", async () => {
          if (await store.getRun(runId)) return finishStarted(engine, ctx.key, runId);
          const job = await engine.sendJob(ctx.key, req.input, options);
          if (job.kind === "duplicate") await tellParentOfDuplicate(parts, ctx.key);
          return job;
        });
      },
      approve: async (ctx: restate.ObjectContext, req: ApproveRequest) => {
        const before = await ctx.run("before", () => sessionMark(store, ctx.key));
        return exclusive(ctx, parts, "approve", async () => {
          const now = await sessionMark(store, ctx.key);
          // A retry of an approval that was taken: the run carries on from its checkpoint.
          if (before.runId && !sameMark(before, now)) {
            return finishStarted(engine, ctx.key, before.runId);
          }
          return engine.approveJob(ctx.key, req.decisions, req.options);
        });
      },
      resume: (ctx: restate.ObjectContext) =>
        exclusive(ctx, parts, "resume", () => engine.resumeJob(ctx.key)),
      collect: (ctx: restate.ObjectContext, req: { deep?: boolean } | null) =>
        exclusive(ctx, parts, "collect", () => engine.collect(ctx.key, req?.deep ?? false)),
      onTimer: (ctx: restate.ObjectContext) =>
        exclusive(ctx, parts, "timer", () => engine.fireTimer(ctx.key)),
      session: (ctx: restate.ObjectContext) =>
        exclusive(ctx, parts, "session", () => engine.session(ctx.key)),
      endSession: (ctx: restate.ObjectContext, req: { sessionId: string }) =>
        exclusive(ctx, parts, "endSession", () => engine.endSession(ctx.key, req.sessionId)),
      // A handoff's halves, each in its own agent's mailbox, in order (see `handoffService`).
      handOver: async (ctx: restate.ObjectContext, req: { sessionId: string }) => {
        const held = await exclusive(ctx, parts, "handOver", () =>
          engine.handoff.hold(ctx.key, req.sessionId, false),
        );
        if (held.ok) ctx.set(HANDING_OVER, req.sessionId);
        return held;
      },
      takeSession: (ctx: restate.ObjectContext, held: HeldSession) =>
        exclusive(ctx, parts, "takeSession", () => engine.handoff.handTo(ctx.key, held)),
      letGo: (ctx: restate.ObjectContext, req: { sessionId: string; moved: boolean }) => {
        ctx.clear(HANDING_OVER);
        return exclusive(ctx, parts, "letGo", () =>
          engine.handoff.letGo(ctx.key, req.sessionId, req.moved),
        );
      },
      updateAgent: (ctx: restate.ObjectContext, change: AgentChange) =>
        exclusive(ctx, parts, "updateAgent", () => engine.updateAgent(ctx.key, change)),
      editBlocks: (ctx: restate.ObjectContext, edit: BlockEdit) =>
        exclusive(ctx, parts, "editBlocks", () => engine.editBlocks(ctx.key, edit)),
      compact: (ctx: restate.ObjectContext, req: CompactRequest) =>
        exclusive(ctx, parts, "compact", () => engine.compact(ctx.key, req)),
      runTool: (ctx: restate.ObjectContext, req: { name: string; args: Record<string, unknown> }) =>
        exclusive(ctx, parts, "runTool", () => engine.runTool(ctx.key, req.name, req.args)),
      deleteAgent: (ctx: restate.ObjectContext) =>
        exclusive(ctx, parts, "deleteAgent", () => engine.deleteAgent(ctx.key)),
      cancelSleeping: (ctx: restate.ObjectContext) =>
        exclusive(ctx, parts, "cancel", () => engine.cancel(ctx.key)),
      cancel: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext): Promise<Wire<boolean>> => {
          const phase = await ctx.run("abort", async () => {
            await parts.broadcastCancel(ctx.key);
            return (await store.loadSession(ctx.key))?.phase ?? "idle";
          });
          if (phase !== "awaiting_approval" && phase !== "awaiting_children") {
            return { ok: true, value: phase === "running" };
          }
          // Nothing runs: the sleeping run is ended in the agent's mailbox.
          return ctx.genericCall<null, Wire<boolean>>({
            service: AGENT_OBJECT,
            method: "cancelSleeping",
            key: ctx.key,
            parameter: null,
            inputSerde: restate.serde.json,
            outputSerde: restate.serde.json,
          });
        },
      ),
    },
  });
}

export type AgentObject = ReturnType<typeof agentObject>;

/**
 * Runs an operation in the agent's mailbox as one journaled step, then sets the agent's next
 * timer (a paused session's wake-up, an approval's expiry) as a delayed send to itself.
 */
async function exclusive<T>(
  ctx: restate.ObjectContext,
  parts: WorkerParts,
  name: string,
  work: () => Promise<T>,
): Promise<Wire<T>> {
  const signal = ctx.request().attemptCompletedSignal;
  const handingOver = await ctx.get<string>(HANDING_OVER);
  const done = await ctx.run(name, async () => {
    if (handingOver) {
      const busy = new BusyError(`agent ${ctx.key} is handing its session over`, 200);
      return { answer: await toWire(() => Promise.reject(busy)), wakeInMs: null };
    }
    // Restate gave up on this attempt while it runs (it lost the connection): stop the turn;
    // whatever it still tries to write is refused (see fenced-store).
    let finished = false;
    await parts.beforeJob();
    const stop = () => finished || parts.engine.abortLocal(ctx.key);
    signal.addEventListener("abort", stop, { once: true });
    const answer = await inAttempt(signal, () => toWire(work)).finally(() => {
      finished = true;
      signal.removeEventListener("abort", stop);
    });
    // The caller hears the run's events before its answer.
    await parts.flushEvents();
    return { answer, wakeInMs: await nextWakeInMs(parts, ctx.key) };
  });
  if (done.wakeInMs !== null) {
    ctx.genericSend({
      service: AGENT_OBJECT,
      method: "onTimer",
      key: ctx.key,
      parameter: null,
      inputSerde: restate.serde.json,
      delay: done.wakeInMs,
    });
  }
  return done.answer as Wire<T>;
}

async function nextWakeInMs(parts: WorkerParts, agentId: string): Promise<number | null> {
  const state = await parts.store.loadSession(agentId).catch(() => null);
  if (!state) return null;
  const { wake, approval_expiry } = wakeUpsOf(state);
  const times = [wake, approval_expiry].filter((at): at is number => at !== null);
  if (times.length === 0) return null;
  return Math.max(0, Math.min(...times) - parts.clock.now());
}

/** A run this operation started before a crash: it finishes, and the caller reads it. */
async function finishStarted(engine: EmbeddedEngine, agentId: string, runId: string): Promise<Job> {
  await engine.resumeJob(agentId);
  return { kind: "sleeping", runId };
}

/** A sub-agent's task it had run before: its stop told nobody, so its parent hears now. */
async function tellParentOfDuplicate(parts: WorkerParts, agentId: string): Promise<void> {
  const record = await parts.store.getAgent(agentId);
  if (record?.parent_id) await parts.route.collect(record.parent_id, false);
}

interface SessionMark {
  runId: string | null;
  runSeq: number;
  phase: string;
}

async function sessionMark(store: Store, agentId: string): Promise<SessionMark> {
  const state = await store.loadSession(agentId);
  return {
    runId: state?.run_id ?? null,
    runSeq: state?.run_seq ?? 0,
    phase: state?.phase ?? "idle",
  };
}

const sameMark = (a: SessionMark, b: SessionMark) =>
  a.runId === b.runId && a.runSeq === b.runSeq && a.phase === b.phase;
