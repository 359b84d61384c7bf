import { DEFAULT_HISTORY_LIMIT } from "../agent/perform-step.js";
import { endSession } from "../agent/session-end.js";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { RunRecord } from "../records/agent-record.js";
import type { AgentMessage } from "../records/messages.js";
import { newSessionState, type SessionState } from "../records/session-state.js";
import type { Activation } from "./activation.js";
import type { Dispatcher } from "./dispatcher.js";
import { prepareHandoff } from "./session-handoff.js";
import { childTasks } from "./sub-agents.js";
import type { TimerLoop } from "./timer-loop.js";
import type { EngineOptions, Turns } from "./turns.js";

/** A session its source holds out for a handoff, with its current run and that run's messages. */
export interface HeldSession {
  state: SessionState;
  messages: AgentMessage[];
  run: RunRecord | null;
}

/**
 * Hands sessions between agents (the seed's handoff): the target takes the session's
 * checkpoint and a copy of its current run's messages and carries on from there; the source
 * starts a fresh session. The target must be idle. The target is written before the source is
 * reset, so a crash in between leaves the session in both places, never in neither.
 */
export class SessionMover {
  constructor(
    private readonly options: EngineOptions,
    private readonly dispatcher: Dispatcher<Activation>,
    private readonly turns: Turns,
    private readonly timers: TimerLoop,
  ) {}

  async transfer(sourceId: string, sessionId: string, targetId: string): Promise<SessionState> {
    if (sourceId === targetId) throw new ConflictError("an agent cannot take over its own session");
    const held = await this.hold(sourceId, sessionId, true);
    let moved: SessionState;
    try {
      moved = await this.handTo(targetId, held);
    } catch (error) {
      await this.letGo(sourceId, sessionId, false);
      throw error;
    }
    await this.letGo(sourceId, sessionId, true);
    return moved;
  }

  /**
   * The source's first half: the session (it must have no sub-agents at work) with its run's
   * messages. `mark` refuses the source other work until `letGo` (the Restate engine keeps
   * that mark in the agent's object instead: the halves may run in different workers).
   */
  hold(sourceId: string, sessionId: string, mark: boolean): Promise<HeldSession> {
    return this.dispatcher.submit(sourceId, async (source) => {
      await this.turns.finishInterrupted(source);
      if (source.state.session_id !== sessionId) throw new NotFoundError("session", sessionId);
      if (childTasks(source.state).length > 0) {
        throw new ConflictError(
          `agent ${sourceId} waits for its sub-agents; its session cannot move now`,
        );
      }
      const runId = source.state.run_id;
      const ofRun = runId
        ? source.history.recent(DEFAULT_HISTORY_LIMIT).filter((m) => m.run_id === runId)
        : [];
      const run = runId ? await this.options.store.getRun(runId) : null;
      if (mark) source.handingOver = true;
      return { state: source.state, messages: ofRun, run };
    });
  }

  /**
   * The source's last half: unmarked, and (once the target holds the session) a fresh session
   * begins. Safe to repeat: a source already past that session is left as it is.
   */
  letGo(sourceId: string, sessionId: string, moved: boolean): Promise<void> {
    const { store, ids } = this.options;
    return this.dispatcher.submit(sourceId, async (source) => {
      source.handingOver = false;
      if (!moved) return;
      await this.turns.ensureFresh(source);
      if (source.state.session_id !== sessionId) return;
      const fresh = newSessionState(ids.next("session"));
      await store.commit({
        agentId: sourceId,
        state: fresh,
        messages: [],
        memory: { blocks: [], passages: [] },
      });
      source.state = fresh;
      this.timers.notice(fresh);
    });
  }

  /** Ends an idle session in the agent's mailbox; the next begins (see `endSession`). */
  end(agentId: string, sessionId: string): Promise<SessionState> {
    return this.dispatcher.submit(agentId, async (activation) => {
      await this.turns.finishInterrupted(activation);
      const { state } = activation;
      if (state.session_id !== sessionId)
        throw new NotFoundError("session", sessionId, [state.session_id]);
      const result = await this.turns.run(activation, async (deps) => {
        const next = await endSession(activation.agent, activation.state, deps);
        return { state: next, messages: [], stopReason: "end_turn", usage: next.usage };
      });
      return result.state;
    });
  }

  /** The target's half of a handoff: it must be idle; it takes the session and its messages. */
  handTo(targetId: string, { state, messages, run }: HeldSession): Promise<SessionState> {
    const { store, ids } = this.options;
    return this.dispatcher.submit(targetId, async (target) => {
      await this.turns.finishInterrupted(target);
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
      this.timers.notice(handoff.state);
      return handoff.state;
    });
  }
}
