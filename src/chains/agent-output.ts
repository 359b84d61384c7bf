import type { ChainApproval } from "../records/chain-run.js";
import type { AgentMessage, StopReason } from "../records/messages.js";
import type { RunOutcome } from "../runtime/engine.js";

/** Stop reasons that mean the agent's run went wrong, whatever it said before. */
const FAILED_STOPS: ReadonlySet<StopReason> = new Set([
  "error",
  "llm_api_error",
  "invalid_llm_response",
  "invalid_tool_call",
  "max_tokens_exceeded",
  "context_window_overflow_in_system_prompt",
]);

export interface AgentOutput {
  text: string;
  /** `reasoning` when the run gave no text and its reasoning stands in (a TARSy lesson). */
  source: "text" | "reasoning";
}

/**
 * What a run produced: its last reply, or, with no reply at all, its last reasoning. A reply
 * through `send_message` (memgpt agents) is a reply too: it is stored as that tool's call.
 */
export function outputOf(messages: readonly AgentMessage[]): AgentOutput | null {
  let reasoning: string | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.message_type === "assistant_message" && message.content.trim()) {
      return { text: message.content, source: "text" };
    }
    const sent = message?.message_type === "tool_call_message" ? sentText(message) : null;
    if (sent?.trim()) return { text: sent, source: "text" };
    if (
      reasoning === null &&
      message?.message_type === "reasoning_message" &&
      message.reasoning.trim()
    ) {
      reasoning = message.reasoning;
    }
  }
  return reasoning === null ? null : { text: reasoning, source: "reasoning" };
}

/** The text of a `send_message` call, or null for any other call. */
function sentText(call: Extract<AgentMessage, { message_type: "tool_call_message" }>) {
  if (call.tool_call.name !== "send_message") return null;
  try {
    const args: unknown = JSON.parse(call.tool_call.arguments);
    const text =
      typeof args === "object" && args !== null && "message" in args ? args.message : null;
    return typeof text === "string" ? text : null;
  } catch {
    return null;
  }
}

export type AgentVerdict =
  | { kind: "completed"; output: AgentOutput }
  | { kind: "cancelled" }
  | { kind: "awaiting_approval" }
  | { kind: "failed"; error: string };

/** How a stage agent's run came out, for the chain. */
export function verdictOf(outcome: RunOutcome): AgentVerdict {
  const { stopReason } = outcome;
  if (stopReason === "requires_approval") return { kind: "awaiting_approval" };
  if (stopReason === "cancelled") return { kind: "cancelled" };
  if (FAILED_STOPS.has(stopReason)) {
    return { kind: "failed", error: `the agent's run stopped with '${stopReason}'` };
  }
  const output = outputOf(outcome.messages);
  if (!output) return { kind: "failed", error: "the agent's run ended with no output" };
  return { kind: "completed", output };
}

/** The approvals a stopped run waits for: its own unanswered requests and its sub-agents'. */
export function approvalsOf(
  outcome: RunOutcome,
  agentId: string,
): Omit<ChainApproval, "stage" | "agent_name">[] {
  const answered = new Set(
    outcome.messages.flatMap((m) =>
      m.message_type === "approval_response_message"
        ? m.approvals.map((a) => a.tool_call_id)
        : m.message_type === "tool_return_message"
          ? [m.tool_call_id]
          : [],
    ),
  );
  const own = outcome.messages.flatMap((m) =>
    m.message_type === "approval_request_message" && !answered.has(m.tool_call.tool_call_id)
      ? [{ agent_id: agentId, tool_call: m.tool_call }]
      : [],
  );
  const below = outcome.childApprovals.map((a) => ({
    agent_id: a.agentId,
    tool_call: a.message.tool_call,
  }));
  return [...own, ...below];
}

const SCORE_LINE = /\bscore\b\s*[:=]\s*(-?\d+(?:\.\d+)?)/i;
const JSON_OBJECT = /\{[^{}]*\}/g;

/**
 * The number a scoring agent gave: a JSON object with a numeric `score` (alone or in the text),
 * else a line `score: N`. Null when there is none: never a silent 0.
 */
export function parseScore(text: string): number | null {
  for (const match of text.matchAll(JSON_OBJECT)) {
    try {
      const value: unknown = JSON.parse(match[0]);
      const score =
        typeof value === "object" && value !== null && "score" in value
          ? numeric(value.score)
          : null;
      if (score !== null) return score;
    } catch {
      // Not JSON: the text may still hold a score line.
    }
  }
  const line = SCORE_LINE.exec(text)?.[1];
  return line === undefined ? null : Number(line);
}

function numeric(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/**
 * The score of a structured answer: the JSON object its output schema validated, read as it
 * is, never searched. Null when it is not an object with a finite numeric `score`.
 */
export function structuredScore(
  text: string,
): { score: number; result: Record<string, unknown> } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const score = Reflect.get(value, "score");
  if (typeof score !== "number" || !Number.isFinite(score)) return null;
  return { score, result: value as Record<string, unknown> };
}
