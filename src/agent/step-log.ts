import type { AgentMessage, StopReason } from "../records/messages.js";
import type { StepInput } from "../records/run-journal.js";
import { applyStepUpdate, type StepRecord, type StepUpdate } from "../records/step-record.js";
import type { Applied } from "./apply.js";
import type { ModelCallSeen } from "./observer.js";

/**
 * A step's effect with what perform-step observed: the record of its model call (a new step),
 * or how long the tool call it ran took. Commits write the step records these change.
 */
export interface Performed extends Applied {
  /** What the step was given from outside (a model response, a tool result), for the journal. */
  input?: StepInput;
  step?: StepRecord;
  toolRun?: { toolCallId: string; durationMs: number };
}

/** The record of a step's model call, as the commit of that call writes it first. */
export function newStepRecord(
  seen: ModelCallSeen,
  toolCalls: readonly { id: string; name: string }[],
): StepRecord {
  const cancelled = seen.error?.kind === "cancelled";
  return {
    id: seen.stepId,
    agent_id: seen.agentId,
    run_id: seen.runId,
    status: seen.error === null ? "success" : cancelled ? "cancelled" : "failed",
    model: seen.model,
    fallbacks: [...seen.fallbacks],
    prompt_tokens: seen.inputTokens,
    completion_tokens: seen.outputTokens,
    cached_input_tokens: seen.cachedInputTokens,
    cache_write_input_tokens: seen.cacheWriteInputTokens,
    model_latency_ms: Math.max(0, seen.endedAtMs - seen.startedAtMs - seen.queueWaitMs),
    queue_wait_ms: seen.queueWaitMs,
    finish_reason: seen.finishReason,
    stop_reason: null,
    error: seen.error?.message ?? null,
    tool_calls: toolCalls.map((call) => ({
      tool_call_id: call.id,
      name: call.name,
      outcome: "pending",
      duration_ms: null,
    })),
    created_at_ms: seen.startedAtMs,
  };
}

/**
 * What a commit writes of step records: the step its model call started (whole), and updates to
 * earlier steps: the outcome of each tool return it holds and, for the commit that ends the
 * turn, the stop reason on the last step. The loop never reads a step back: the store applies
 * updates to what it has.
 */
export function stepChanges(
  performed: Performed,
  messages: readonly AgentMessage[],
  stopReason?: StopReason,
): { steps: StepRecord[]; stepUpdates: StepUpdate[] } {
  const updates = new Map<string, StepUpdate>();
  const updateOf = (id: string): StepUpdate => {
    const found = updates.get(id) ?? { id, tool_calls: [], stop_reason: null };
    updates.set(id, found);
    return found;
  };
  for (const message of messages) {
    if (message.message_type !== "tool_return_message" || !message.step_id) continue;
    const ran = performed.toolRun?.toolCallId === message.tool_call_id ? performed.toolRun : null;
    updateOf(message.step_id).tool_calls.push({
      tool_call_id: message.tool_call_id,
      outcome: message.status,
      duration_ms: ran ? ran.durationMs : null,
    });
  }
  const last = performed.state.step_id;
  if (stopReason && last) updateOf(last).stop_reason = stopReason;
  const started = performed.step;
  if (!started) return { steps: [], stepUpdates: [...updates.values()] };
  // A step closed in the commit that starts it (a stop right after the model call) is whole.
  const own = updates.get(started.id);
  updates.delete(started.id);
  const steps = [own ? applyStepUpdate(started, own) : started];
  return { steps, stepUpdates: [...updates.values()] };
}
