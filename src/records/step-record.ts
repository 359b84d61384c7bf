import { z } from "zod";
import { StopReason } from "./messages.js";

/**
 * One tool call of a step. `pending` until its tool return is committed; then the return's
 * status. `duration_ms` is how long Holdfast ran it, null when it did not run here (refused by
 * a rule, denied, closed by a stop, or run by a client or a sub-agent).
 */
export const StepToolCall = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  outcome: z.enum(["pending", "success", "error"]),
  duration_ms: z.number().min(0).nullable(),
});
export type StepToolCall = z.infer<typeof StepToolCall>;

/**
 * What one step of the loop did: one model call and the tool calls of its response. Written by
 * the loop in the same transaction as the step's checkpoint, and updated (same id) by the
 * commits that record its tool returns and, for the last step, the turn's stop.
 *
 * Times come from the loop's injected clock, so a simulation records the same numbers each run.
 */
export const StepRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  run_id: z.string().nullable(),
  /** `success`, `failed` (the model call failed) or `cancelled` (cancelled in flight). */
  status: z.enum(["success", "failed", "cancelled"]),
  /** The handle that answered (a fallback's when one did), or the one that failed. */
  model: z.string(),
  /** Handles that failed with an outage before `model` answered, in order. */
  fallbacks: z.array(z.string()).default([]),
  /** Every prompt token, cached or not. */
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  /** Of `prompt_tokens`, those read from the provider's prompt cache. */
  cached_input_tokens: z.int().min(0).default(0),
  /** Of `prompt_tokens`, those written to the provider's prompt cache. */
  cache_write_input_tokens: z.int().min(0).default(0),
  /** How long the model call took, without its wait behind the rate limits. */
  model_latency_ms: z.number().min(0),
  /** How long the call queued behind the provider's rate limits before it was sent. */
  queue_wait_ms: z.number().min(0).default(0),
  /** Why the model stopped (`stop`, `tool_calls`, `length`, …), null if the call failed. */
  finish_reason: z.string().nullable(),
  /** The turn's stop reason, on the step that ended the turn. */
  stop_reason: StopReason.nullable().default(null),
  /** The model's error, for a failed step. */
  error: z.string().nullable().default(null),
  tool_calls: z.array(StepToolCall).default([]),
  created_at_ms: z.number(),
  /** A person's rating of the step (`PATCH /v1/steps/{id}/feedback`); absent until given. */
  feedback: z.enum(["positive", "negative"]).nullable().optional(),
  /** Tags the feedback set on the step. */
  tags: z.array(z.string()).optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;
export type StepFeedback = "positive" | "negative" | null;

/** The provider part of a handle (`openai` of `openai/gpt-4.1-mini`). */
export function providerOf(handle: string): string {
  const slash = handle.indexOf("/");
  return slash < 0 ? handle : handle.slice(0, slash);
}

/**
 * A change to a stored step record, made by a later commit of its turn: tool calls that ended
 * (by `tool_call_id`) and the turn's stop reason. Stores apply it to the stored record inside
 * the commit's transaction, so the loop never reads a step back; a step with no record (one
 * from before step records existed) is left without.
 */
export const StepUpdate = z.object({
  id: z.string(),
  tool_calls: z
    .array(StepToolCall.pick({ tool_call_id: true, outcome: true, duration_ms: true }))
    .default([]),
  stop_reason: StopReason.nullable().default(null),
});
export type StepUpdate = z.infer<typeof StepUpdate>;

/** `record` with `update` applied: calls it names get their outcome; a stop reason is set. */
export function applyStepUpdate(record: StepRecord, update: StepUpdate): StepRecord {
  const tool_calls = record.tool_calls.map((call) => {
    const ended = update.tool_calls.find((done) => done.tool_call_id === call.tool_call_id);
    return ended ? { ...call, outcome: ended.outcome, duration_ms: ended.duration_ms } : call;
  });
  return { ...record, tool_calls, stop_reason: update.stop_reason ?? record.stop_reason };
}
