import { AssertionError, ConflictError } from "../core/errors.js";
import type { Passage } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";
import { newSessionState, type SessionState } from "../records/session-state.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { transcript } from "./compaction.js";
import { messagesAfter } from "./context-scope.js";
import type { LoopDeps, TurnAgent } from "./run-turn.js";

/** Asked of a `learning` agent's model when one of its sessions ends. */
export const LEARN_PROMPT =
  "A conversation session of yours has ended. Write down what you learned in it that will help " +
  "you in later sessions: facts about the user and their preferences, decisions, what worked " +
  "and what did not. Write short, self-contained sentences. If nothing is worth keeping, answer " +
  "exactly NOTHING.";

/** Tags of the passages a session's lessons are stored as (with `session:<id>`). */
export const LEARNED_TAG = "learned";
/** The most messages of a session its lesson is written from (the newest ones). */
const LEARN_HISTORY_LIMIT = 400;

/**
 * Whether the session has been idle past its type's limit: the next turn begins a new one.
 * A session ends only between turns (idle), never while it waits or sleeps.
 */
export function sessionExpired(
  state: SessionState,
  caps: EffectiveCapabilities,
  nowMs: number,
): boolean {
  const idle = caps.memory.session_idle_minutes;
  return (
    state.phase === "idle" &&
    idle !== null &&
    state.last_active_ms !== null &&
    nowMs - state.last_active_ms > idle * 60_000
  );
}

/**
 * The checkpoint of the session after `state`'s: it begins after `lastMessageId`; a `session`
 * agent's summary ends with its session; a `learning` agent gets its pending lesson.
 */
export function nextSessionState(
  state: SessionState,
  sessionId: string,
  lastMessageId: string | null,
  caps: EffectiveCapabilities,
): SessionState {
  const spoke = lastMessageId !== null && lastMessageId !== state.history_after;
  const learning =
    caps.memory.depth === "learning" && spoke && lastMessageId !== null
      ? { session_id: state.session_id, after_id: state.history_after, through_id: lastMessageId }
      : null;
  return {
    ...newSessionState(sessionId),
    history_after: lastMessageId,
    last_active_ms: state.last_active_ms,
    learning,
    // A `session` agent's summaries end with its session; the others' (every conversation's)
    // carry on, with the conversation they belong to (decision 026).
    ...(caps.memory.depth !== "session" && {
      summary: state.summary,
      conversation_id: state.conversation_id,
      summaries: state.summaries,
    }),
  };
}

/**
 * Ends the agent's session and begins the next: the new checkpoint (with a `learning` agent's
 * pending lesson) is committed first, then the lesson is written. A crash between the two
 * leaves the lesson pending in the checkpoint: it is written before the agent's next turn.
 */
export async function endSession(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<SessionState> {
  if (state.phase !== "idle")
    throw new ConflictError(
      `agent ${agent.id} is in a turn (${state.phase}); a session ends between turns`,
    );
  // A lesson still pending from the session before is written first, so none is lost.
  const settled = await learnFromSession(agent, state, deps);
  const newest = deps.history?.recent(1) ?? (await deps.store.recentMessages(agent.id, 1));
  const caps = agent.config.capabilities;
  const next = nextSessionState(settled, deps.ids.next("session"), newest[0]?.id ?? null, caps);
  await deps.store.commit({
    agentId: agent.id,
    state: next,
    messages: [],
    memory: { blocks: [], passages: [] },
  });
  return learnFromSession(agent, next, deps);
}

/**
 * Writes a finished session's lesson to archival memory, exactly once: the passage and the
 * checkpoint without the pending lesson are one commit. If the model fails, the lesson stays
 * pending (an `error` event says so) and is tried again before the next turn.
 */
export async function learnFromSession(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<SessionState> {
  const pending = state.learning;
  if (pending === null) return state;
  const recent = await deps.store.recentMessages(agent.id, LEARN_HISTORY_LIMIT);
  const through = recent.findIndex((message) => message.id === pending.through_id);
  const session = messagesAfter(recent.slice(0, through + 1), pending.after_id);
  let lesson: string | null = null;
  if (session.length > 0) {
    try {
      lesson = await askLesson(agent, session, deps);
    } catch (error) {
      if (error instanceof AssertionError || !(error instanceof Error)) throw error;
      const message = `writing what session ${pending.session_id} taught failed: ${error.message}`;
      deps.onEvent?.({ type: "error", message, retryable: true });
      return state;
    }
  }
  const passages: Passage[] =
    lesson === null
      ? []
      : [
          {
            id: deps.ids.next("passage"),
            text: lesson,
            tags: [LEARNED_TAG, `session:${pending.session_id}`],
            created_at_ms: deps.clock.now(),
          },
        ];
  const next = { ...state, learning: null };
  await deps.store.commit({
    agentId: agent.id,
    state: next,
    messages: [],
    memory: { blocks: [], passages },
  });
  return next;
}

/** The model's lesson from a session's messages, or null when it finds nothing to keep. */
async function askLesson(
  agent: TurnAgent,
  session: readonly AgentMessage[],
  deps: LoopDeps,
): Promise<string | null> {
  const response = await deps.model.generate({
    system: LEARN_PROMPT,
    messages: [{ role: "user", content: `The session, oldest first:\n${transcript(session)}` }],
    tools: [],
    toolChoice: "none",
    maxOutputTokens: 1024,
    caller: agent.id,
  });
  const text = response.text.trim();
  return text === "" || /^nothing\.?$/i.test(text) ? null : text;
}

/**
 * What a turn starts from: a session idle past its limit ends first, and a lesson still pending
 * is written, so that the turn sees the session it belongs to.
 */
export async function sessionForTurn(
  agent: TurnAgent,
  state: SessionState,
  deps: LoopDeps,
): Promise<SessionState> {
  if (sessionExpired(state, agent.config.capabilities, deps.clock.now()))
    return endSession(agent, state, deps);
  return learnFromSession(agent, state, deps);
}
