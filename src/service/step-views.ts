import type { ModelPrice } from "../config/observability-section.js";
import type { LettaRunUsage, LettaStep } from "../records/letta-run.js";
import { providerOf, type StepRecord } from "../records/step-record.js";

type Prices = Readonly<Record<string, ModelPrice>>;

/** A step's cost in USD from the price table; null when its model has no price. */
export function stepCost(step: StepRecord, prices: Prices): number | null {
  const price = prices[step.model];
  if (!price) return null;
  const cached = Math.min(step.cached_input_tokens, step.prompt_tokens);
  const fresh = step.prompt_tokens - cached;
  const cachedPrice = price.cached_input_per_million ?? price.input_per_million;
  const usd =
    fresh * price.input_per_million +
    cached * cachedPrice +
    step.completion_tokens * price.output_per_million;
  return usd / 1_000_000;
}

/** Letta's `Step`, with what Holdfast records besides: latency, queue wait, tool calls, cost. */
export function stepView(step: StepRecord, prices: Prices): LettaStep {
  const slash = step.model.indexOf("/");
  return {
    id: step.id,
    agent_id: step.agent_id,
    run_id: step.run_id,
    status: step.status,
    stop_reason: step.stop_reason,
    model: slash < 0 ? step.model : step.model.slice(slash + 1),
    model_handle: step.model,
    provider_name: providerOf(step.model),
    provider_category: "base",
    prompt_tokens: step.prompt_tokens,
    completion_tokens: step.completion_tokens,
    total_tokens: step.prompt_tokens + step.completion_tokens,
    cached_input_tokens: step.cached_input_tokens,
    cache_write_tokens: step.cache_write_input_tokens,
    prompt_tokens_details: {
      cached_tokens: step.cached_input_tokens,
      cache_read_tokens: step.cached_input_tokens,
      cache_creation_tokens: step.cache_write_input_tokens,
    },
    error_type: step.status === "failed" ? "model_error" : null,
    error_data: step.error === null ? null : { message: step.error },
    tags: step.tags ?? [],
    feedback: step.feedback ?? null,
    messages: [],
    created_at: new Date(step.created_at_ms).toISOString(),
    finish_reason: step.finish_reason,
    fallbacks: step.fallbacks,
    model_latency_ms: step.model_latency_ms,
    queue_wait_ms: step.queue_wait_ms,
    tool_calls: step.tool_calls,
    cost_usd: stepCost(step, prices),
  };
}
export type StepView = LettaStep;

const NS_PER_MS = 1_000_000;

/**
 * Letta's `StepMetrics` from what Holdfast times: the model call (`llm_request_ns`, after its
 * wait behind rate limits) and the tools it ran here (`tool_execution_ns`, null when none ran).
 * `step_ns` is their sum with that wait: the step's own work, not the turn's other steps.
 */
export function stepMetricsView(step: StepRecord) {
  const ran = step.tool_calls.filter((call) => call.duration_ms !== null);
  const toolMs = ran.reduce((sum, call) => sum + (call.duration_ms ?? 0), 0);
  const ns = (ms: number) => Math.round(ms * NS_PER_MS);
  return {
    id: step.id,
    agent_id: step.agent_id,
    run_id: step.run_id,
    project_id: null,
    provider_id: null,
    template_id: null,
    base_template_id: null,
    step_start_ns: ns(step.created_at_ms),
    llm_request_start_ns: ns(step.created_at_ms + step.queue_wait_ms),
    llm_request_ns: ns(step.model_latency_ms),
    tool_execution_ns: ran.length > 0 ? ns(toolMs) : null,
    step_ns: ns(step.queue_wait_ms + step.model_latency_ms + toolMs),
  };
}

/**
 * Letta's run usage (`GET /v1/runs/{id}/usage`) from the run's steps, with its cost: per model,
 * and in total when every model that answered has a price (else null, and `unpriced_models`
 * names those without).
 */
export function runUsageView(steps: readonly StepRecord[], prices: Prices): LettaRunUsage {
  const byModel = new Map<string, { prompt: number; completion: number; cost: number | null }>();
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let cacheWrite = 0;
  for (const step of steps) {
    prompt += step.prompt_tokens;
    completion += step.completion_tokens;
    cached += step.cached_input_tokens;
    cacheWrite += step.cache_write_input_tokens;
    const entry = byModel.get(step.model) ?? { prompt: 0, completion: 0, cost: 0 };
    const cost = stepCost(step, prices);
    entry.prompt += step.prompt_tokens;
    entry.completion += step.completion_tokens;
    entry.cost = entry.cost === null || cost === null ? null : entry.cost + cost;
    byModel.set(step.model, entry);
  }
  const models = [...byModel].map(([model, e]) => ({
    model,
    prompt_tokens: e.prompt,
    completion_tokens: e.completion,
    cost_usd: e.cost,
  }));
  const unpriced = models.filter((m) => m.cost_usd === null).map((m) => m.model);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: {
      cached_tokens: cached,
      cache_read_tokens: cached,
      cache_creation_tokens: cacheWrite,
    },
    completion_tokens_details: null,
    step_count: steps.length,
    cost_usd: unpriced.length > 0 ? null : models.reduce((sum, m) => sum + (m.cost_usd ?? 0), 0),
    cost_by_model: models,
    unpriced_models: unpriced,
  };
}
