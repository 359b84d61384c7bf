import type { ModelMessage } from "../llm/model.js";
import type { AgentMessage } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";

/**
 * The messages after the one with id `id`, oldest first. A window of the newest messages that
 * does not hold `id` is all newer than it (the window is the newest), so it is kept whole.
 */
export function messagesAfter(
  messages: readonly AgentMessage[],
  id: string | null,
): AgentMessage[] {
  if (id === null) return [...messages];
  const at = messages.findIndex((message) => message.id === id);
  return at === -1 ? [...messages] : messages.slice(at + 1);
}

/**
 * The stored messages a model call may see, by memory depth: `stateless` (or a type without
 * history) only the turn's own; `session` those of the current session; `persistent` and
 * `learning` all. Messages a summary already covers are left out: the summary stands for them.
 */
export function historyInScope(
  recent: readonly AgentMessage[],
  state: SessionState,
  caps: EffectiveCapabilities,
): AgentMessage[] {
  if (caps.memory.depth === "stateless" || !caps.include_history)
    return recent.filter((message) => message.run_id === state.run_id);
  const scoped =
    caps.memory.depth === "session" ? messagesAfter(recent, state.history_after) : [...recent];
  return messagesAfter(scoped, state.summary?.through_id ?? null);
}

/** What opens the conversation before the history: the summary, then what recall found. */
export function contextPreface(state: SessionState): ModelMessage[] {
  const preface: ModelMessage[] = [];
  if (state.summary !== null && state.summary.text !== "")
    preface.push({
      role: "user",
      content: `[system] Summary of the ${state.summary.folded} earlier messages of this conversation (they are kept; conversation_search finds them):\n${state.summary.text}`,
    });
  if (state.recall !== null && state.recall !== "")
    preface.push({
      role: "user",
      content: `[system] Recalled from your memory for this turn (archival passages and past conversation):\n${state.recall}`,
    });
  return preface;
}
