import type { Message } from "../types.js";

/** One entry of a run's journal (`GET /v1/runs/{id}/journal`), as far as the console reads it. */
export interface JournalEntry {
  kind: string;
  step?: { kind: string; index?: number; reason?: string };
  input?: {
    type: string;
    step_id?: string;
    offered?: string[];
    tool_choice?: string;
    stop_reason?: string;
    response?: {
      text: string;
      reasoning: string;
      toolCalls: { id: string; name: string; arguments: string }[];
      finishReason: string;
      model?: string;
    };
    result?: { status: string; output: string; executed: boolean };
    error?: string;
  };
  stop_reason?: string;
}

/** What a model step was offered and answered, as recorded, and the decisions that followed. */
export interface Exchange {
  offered: string[];
  toolChoice: string;
  response: NonNullable<JournalEntry["input"]>["response"] | null;
  /** Why the call failed, when it did. */
  failed: string | null;
  /** The loop's decisions after the response, until the next model call: run, reject, ask… */
  after: string[];
}

/** The journal's model steps by step id (the step records' ids). */
export function exchanges(entries: readonly JournalEntry[]): Map<string, Exchange> {
  const byStep = new Map<string, Exchange>();
  let current: Exchange | null = null;
  for (const entry of entries) {
    const input = entry.input;
    if (entry.kind === "step" && input?.step_id && input.offered) {
      current = {
        offered: input.offered,
        toolChoice: input.tool_choice ?? "?",
        response: input.response ?? null,
        failed: input.type === "model_failed" ? (input.stop_reason ?? "failed") : null,
        after: [],
      };
      byStep.set(input.step_id, current);
    } else if (entry.kind === "step" && current && entry.step) {
      current.after.push(decision(entry));
    }
  }
  return byStep;
}

function decision(entry: JournalEntry): string {
  const step = entry.step ?? { kind: "?" };
  const call = step.index === undefined ? "" : ` call ${step.index}`;
  const result = entry.input?.result;
  const outcome = result ? ` → ${result.status}${result.executed ? "" : " (not run)"}` : "";
  const why = step.reason ? `: ${step.reason}` : "";
  const refused = entry.input?.type === "refused" ? ` → refused: ${entry.input.error}` : "";
  return `${step.kind.replace(/_/g, " ")}${call}${why}${outcome}${refused}`;
}

const INPUT_KINDS = new Set([
  "user_message",
  "system_message",
  "tool_return_message",
  "approval_response_message",
]);

/**
 * The new messages each step's model call saw, by step id: what arrived since the previous
 * model call (the user's message for the first, tool returns and approvals for later ones).
 */
export function newInputs(messages: readonly Message[]): Map<string, Message[]> {
  const byStep = new Map<string, Message[]>();
  let waiting: Message[] = [];
  for (const message of messages) {
    if (INPUT_KINDS.has(message.message_type)) {
      waiting.push(message);
      continue;
    }
    const step = message.step_id;
    if (!step || byStep.has(step)) continue;
    byStep.set(step, waiting);
    waiting = [];
  }
  return byStep;
}
