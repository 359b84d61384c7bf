import { ConflictError, InvalidArgumentError } from "../core/errors.js";
import { ModelError } from "../llm/model-error.js";
import type { AgentMessage } from "../records/messages.js";
import { enterConversation, type SessionState, summaryOf } from "../records/session-state.js";
import { compactHistory } from "./compaction.js";
import { historyInScope, messagesAfter } from "./context-scope.js";
import { messageTokens } from "./context-window.js";
import { toModelMessages } from "./history.js";
import { afterReset } from "./history-window.js";
import { DEFAULT_HISTORY_LIMIT } from "./perform-step.js";
import type { LoopDeps, TurnAgent } from "./run-turn.js";

/** A summarising asked for now (Letta's `summarize` / conversation `compact`). */
export interface CompactRequest {
  /** The conversation whose history is folded; null: the agent's default conversation. */
  conversationId: string | null;
  /** `all` folds every message in context; `sliding_window` keeps the newest share. */
  mode: "all" | "sliding_window";
  /** With `sliding_window`, the share of the context's tokens folded (Letta's default 0.3). */
  foldShare?: number;
}

/** Letta's `CompactionResponse`. */
export interface CompactResult {
  summary: string;
  num_messages_before: number;
  num_messages_after: number;
}

/** Letta's default share of the history a sliding-window compaction folds. */
const DEFAULT_FOLD_SHARE = 0.3;

/**
 * Folds the oldest messages of one conversation into its recursive summary now, between turns,
 * and commits the new summary with the session checkpoint (no message is written or removed).
 * Refused (409) while a turn is running or waits; a 400 when nothing could be folded, as
 * Letta's compact route answers; a failing model call fails it and keeps the previous summary.
 */
export async function compactNow(
  agent: TurnAgent,
  state: SessionState,
  request: CompactRequest,
  deps: LoopDeps,
): Promise<{ state: SessionState; result: CompactResult }> {
  if (state.phase !== "idle" && state.phase !== "paused") {
    throw new ConflictError(`agent ${agent.id} is in a run; compact it once the run has ended`);
  }
  const { conversationId } = request;
  const recent = await deps.store.recentMessages(agent.id, DEFAULT_HISTORY_LIMIT, conversationId);
  // Seen as a turn in this conversation sees it: its summary current, no run of its own.
  const scoped = { ...enterConversation(state, conversationId), run_id: null };
  const caps = agent.config.capabilities;
  const inContext = historyInScope(afterReset(recent, agent.contextAfter), scoped, caps);
  const total = inContext.reduce((sum, m) => sum + tokensOf(m), 0);
  const keep = request.mode === "all" ? 0 : 1 - (request.foldShare ?? DEFAULT_FOLD_SHARE);
  // compactHistory folds until the rest is within half of the budget it is given.
  const budget = Math.floor(total * keep * 2);
  const stepId = deps.ids.next("step");
  const compactDeps = {
    model: deps.model,
    agentId: agent.id,
    ...(deps.signal && { signal: deps.signal }),
  };
  // The summary is capped by the model's window, not by what this compaction keeps.
  const cap = deps.model.contextWindow;
  const compacted = await compactHistory(compactDeps, scoped, inContext, budget, stepId, cap);
  const summary = compacted.summary;
  if (summary?.last_error && summary.last_error !== summaryOf(state, conversationId)?.last_error)
    throw new ModelError("server", summary.last_error);
  const after = messagesAfter(inContext, summary?.through_id ?? null).length;
  if (!summary || after >= inContext.length) {
    throw new InvalidArgumentError(
      "Summarization failed to reduce the number of messages. You may not have enough messages to compact or need to use a different CompactionSettings (e.g. using `all` mode).",
    );
  }
  // Back to the conversation the session was in, with this conversation's new summary.
  const next = enterConversation(
    { ...compacted, run_id: state.run_id, usage: state.usage },
    state.conversation_id,
  );
  await deps.store.commit({
    agentId: agent.id,
    state: next,
    messages: [],
    memory: { blocks: [], passages: [] },
  });
  return {
    state: next,
    result: {
      summary: summary.text,
      num_messages_before: inContext.length,
      num_messages_after: after,
    },
  };
}

function tokensOf(message: AgentMessage): number {
  return toModelMessages([message]).reduce((sum, m) => sum + messageTokens(m), 0);
}
