import { AssertionError } from "../core/errors.js";
import type { ModelAdapter, ModelMessage } from "../llm/model.js";
import type { AgentMessage } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import { messageTokens } from "./context-window.js";
import type { LoopEvent } from "./events.js";
import { toModelMessages } from "./history.js";

/** Asked of the model when the oldest messages are folded into the running summary. */
export const SUMMARY_PROMPT =
  "You keep the memory of an AI agent's conversation. The oldest messages no longer fit in its " +
  "context window. Write a new summary that folds the previous summary (if any) and these " +
  "messages together: who the user is, what they asked and said, what the agent did, found and " +
  "promised, and anything still open. Be concise and factual; write only the summary.";

const SUMMARY_MAX_OUTPUT_TOKENS = 1024;
/** After a fold the history takes at most this share of its budget, so folds stay rare. */
const KEEP_SHARE = 0.5;
/** A summary takes at most this share of the history's budget, however long the model wrote. */
const SUMMARY_SHARE = 0.25;
/** A message is cut to this many characters in the text the summariser reads. */
const MAX_CHARS_PER_MESSAGE = 2000;

export interface CompactionDeps {
  readonly model: ModelAdapter;
  readonly agentId: string;
  readonly onEvent?: (event: LoopEvent) => void;
  readonly signal?: AbortSignal;
}

/**
 * Letta's recursive summary: when the history outgrows its budget, the oldest messages before
 * the current turn are summarised by the model into a new summary that folds in the previous
 * one. Returns the state to commit with the step: with the new summary, or, if summarising
 * failed, with the previous summary kept and the failure recorded (the context is never
 * emptied: the turn goes on with what fits). Stored messages are never touched.
 */
export async function compactHistory(
  deps: CompactionDeps,
  state: SessionState,
  history: readonly AgentMessage[],
  budgetTokens: number,
  stepId: string,
  /** What caps the summary's length (a share of it); the history's budget by default. */
  capTokens: number = budgetTokens,
): Promise<SessionState> {
  // Once summarising failed in a turn, the turn's later model calls go on without trying again.
  if (state.summary?.failed_in_run != null && state.summary.failed_in_run === state.run_id)
    return state;
  const cut = foldCut(history, state.run_id, budgetTokens);
  if (cut === 0) return state;
  const folded = history.slice(0, cut);
  const previous = state.summary;
  try {
    const response = await deps.model.generate({
      system: SUMMARY_PROMPT,
      messages: [{ role: "user", content: summaryInput(previous?.text ?? null, folded) }],
      tools: [],
      toolChoice: "none",
      maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS,
      caller: deps.agentId,
      ...(deps.signal && { signal: deps.signal }),
    });
    const text = capped(response.text.trim(), capTokens * SUMMARY_SHARE);
    if (text === "") throw new Error("the model answered with an empty summary");
    const count = (previous?.folded ?? 0) + folded.length;
    deps.onEvent?.({ type: "compaction", step_id: stepId, status: "summarised", folded: count });
    return {
      ...state,
      summary: {
        text,
        through_id: folded.at(-1)?.id ?? null,
        folded: count,
        last_error: null,
        failed_in_run: null,
      },
      usage: {
        ...state.usage,
        prompt_tokens: state.usage.prompt_tokens + response.usage.inputTokens,
        completion_tokens: state.usage.completion_tokens + response.usage.outputTokens,
      },
    };
  } catch (error) {
    if (error instanceof AssertionError || !(error instanceof Error)) throw error;
    const message = `summarising ${folded.length} older messages failed: ${error.message}`;
    deps.onEvent?.({
      type: "compaction",
      step_id: stepId,
      status: "failed",
      folded: previous?.folded ?? 0,
      message,
    });
    const kept = previous ?? { text: "", through_id: null, folded: 0 };
    return { ...state, summary: { ...kept, last_error: message, failed_in_run: state.run_id } };
  }
}

/**
 * How many of the oldest messages to fold: the fewest that leave the rest within `KEEP_SHARE`
 * of the budget, never a message of the current turn, never splitting a call from its return.
 */
export function foldCut(
  history: readonly AgentMessage[],
  runId: string | null,
  budgetTokens: number,
): number {
  const firstOfRun = history.findIndex((message) => runId !== null && message.run_id === runId);
  const limit = firstOfRun === -1 ? history.length : firstOfRun;
  const suffix: number[] = new Array(history.length + 1).fill(0);
  for (let i = history.length - 1; i >= 0; i--)
    suffix[i] = (suffix[i + 1] ?? 0) + agentMessageTokens(history[i] as AgentMessage);
  let best = 0;
  for (let k = 1; k <= limit; k++) {
    if (history[k]?.message_type === "tool_return_message") continue;
    best = k;
    if ((suffix[k] ?? 0) <= budgetTokens * KEEP_SHARE) return k;
  }
  return best;
}

/** `text` cut to about `maxTokens` (at the conservative 3.5 characters a token). */
function capped(text: string, maxTokens: number): string {
  const maxChars = Math.max(0, Math.floor(maxTokens * 3.5) - 16);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

function agentMessageTokens(message: AgentMessage): number {
  return toModelMessages([message]).reduce((sum, m) => sum + messageTokens(m), 0);
}

/** The previous summary and the messages to fold, as the summariser reads them. */
function summaryInput(previous: string | null, folded: readonly AgentMessage[]): string {
  const head = previous ? `Previous summary:\n${previous}\n\n` : "";
  return `${head}Messages to fold in, oldest first:\n${transcript(folded)}`;
}

/** Messages as plain lines (`user: …`, `assistant: …`, `tool NAME: …`) for a model to read. */
export function transcript(messages: readonly AgentMessage[]): string {
  return toModelMessages(messages).map(render).join("\n");
}

function render(message: ModelMessage): string {
  const cut = (text: string) =>
    text.length > MAX_CHARS_PER_MESSAGE ? `${text.slice(0, MAX_CHARS_PER_MESSAGE)}…` : text;
  switch (message.role) {
    case "user":
      return `user: ${cut(message.content)}`;
    case "assistant": {
      const calls = message.toolCalls.map(
        (call) => ` [called ${call.name}(${cut(call.arguments)})]`,
      );
      return `assistant: ${cut(message.content)}${calls.join("")}`;
    }
    case "tool":
      return `tool ${message.toolName}: ${cut(message.content)}`;
  }
}
