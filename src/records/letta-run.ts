import { z } from "zod";
import { RunRecord, RunVerification, Usage } from "./agent-record.js";
import { StopReason } from "./messages.js";
import { StepRecord, StepToolCall } from "./step-record.js";

const iso = z.string().describe("ISO 8601 time");

/**
 * Letta's `Run` as the API shows a RunRecord, with Holdfast's usage, verifier outcome and the
 * models that answered.
 */
export const LettaRun = z.object({
  id: z.string(),
  agent_id: z.string(),
  status: RunRecord.shape.status,
  stop_reason: z.string().nullable(),
  created_at: iso,
  completed_at: iso.nullable(),
  total_duration_ns: z.number().nullable(),
  /** True for a run started with `messages/async`. */
  background: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  usage: Usage.nullable(),
  verification: RunVerification.nullable(),
  models: z.array(z.string()),
});
export type LettaRun = z.infer<typeof LettaRun>;

const TokenDetails = z.object({
  cached_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_creation_tokens: z.int(),
});

/** Letta's `Step` as the API shows a StepRecord, with latency, queue wait, tool calls, cost. */
export const LettaStep = z.object({
  id: z.string(),
  agent_id: z.string(),
  run_id: z.string().nullable(),
  status: StepRecord.shape.status,
  stop_reason: StopReason.nullable(),
  /** The model without its provider (`gpt-4.1-mini`); `model_handle` has both. */
  model: z.string(),
  model_handle: z.string(),
  provider_name: z.string(),
  provider_category: z.string(),
  prompt_tokens: z.int(),
  completion_tokens: z.int(),
  total_tokens: z.int(),
  cached_input_tokens: z.int(),
  cache_write_tokens: z.int(),
  prompt_tokens_details: TokenDetails,
  error_type: z.string().nullable(),
  error_data: z.object({ message: z.string() }).nullable(),
  tags: z.array(z.string()),
  /** The caller's feedback on the step (`PATCH /v1/steps/{id}/feedback`). */
  feedback: z.enum(["positive", "negative"]).nullable(),
  messages: z.array(z.unknown()),
  created_at: iso,
  finish_reason: z.string().nullable(),
  fallbacks: z.array(z.string()),
  model_latency_ms: z.number(),
  queue_wait_ms: z.number(),
  tool_calls: z.array(StepToolCall),
  /** USD from the configured price table; null when the model has no price. */
  cost_usd: z.number().nullable(),
});
export type LettaStep = z.infer<typeof LettaStep>;

/** Letta's run usage (`GET /v1/runs/{id}/usage`), with cost per model and in total. */
export const LettaRunUsage = z.object({
  prompt_tokens: z.int(),
  completion_tokens: z.int(),
  total_tokens: z.int(),
  prompt_tokens_details: TokenDetails,
  completion_tokens_details: z.null(),
  step_count: z.int(),
  /** Null when a model that answered has no price (`unpriced_models` names it). */
  cost_usd: z.number().nullable(),
  cost_by_model: z.array(
    z.object({
      model: z.string(),
      prompt_tokens: z.int(),
      completion_tokens: z.int(),
      cost_usd: z.number().nullable(),
    }),
  ),
  unpriced_models: z.array(z.string()),
});
export type LettaRunUsage = z.infer<typeof LettaRunUsage>;
