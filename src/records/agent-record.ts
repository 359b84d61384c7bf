import { z } from "zod";
import { ToolRule } from "./tool-rule.js";

/** Tokens and model calls of a run. */
export const Usage = z.object({
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  step_count: z.int().min(0),
  /** Time the run's model calls queued behind the provider's rate limits; absent if none. */
  queue_wait_ms: z.number().min(0).optional(),
  /** Of `prompt_tokens`, those the provider read from its prompt cache; absent if none. */
  cached_input_tokens: z.int().min(0).optional(),
  /** Of `prompt_tokens`, those written to the provider's prompt cache; absent if none. */
  cache_write_input_tokens: z.int().min(0).optional(),
});
export type Usage = z.infer<typeof Usage>;

/** What the verifier gate concluded about a run's answer. */
export const RunVerification = z.object({
  passed: z.boolean(),
  rounds: z.int().min(0),
  findings: z.array(z.string()),
});
export type RunVerification = z.infer<typeof RunVerification>;

/**
 * An agent as stored: its identity, its type by name and what it sets on top of the type.
 * Memory blocks, messages and the session live in their own rows, never in this one.
 */
export const AgentRecord = z.object({
  id: z.string(),
  /** The tenant it belongs to; other projects never see it. */
  project_id: z.string(),
  name: z.string(),
  /** The name of its agent type in the registry. */
  agent_type: z.string(),
  /** Per-agent overrides (AgentOverrides), validated against the type when set. */
  overrides: z.record(z.string(), z.unknown()),
  tool_rules: z.array(ToolRule),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  /** Letta's `description`, kept apart so `metadata` stays exactly as the client sent it. */
  description: z.string().nullable().default(null),
  /** The agent that spawned it (a sub-agent), or null for an agent a user created. */
  parent_id: z.string().nullable().default(null),
  /**
   * The newest message when the agent's context was last reset (Letta's `reset-messages`):
   * the model sees only messages after it; older ones stay stored and searchable.
   */
  context_after: z.string().optional(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type AgentRecord = z.infer<typeof AgentRecord>;

/** One processing of a message (or approval) by an agent, as Letta's clients see runs. */
export const RunRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  status: z.enum(["running", "completed", "failed", "cancelled"]),
  stop_reason: z.string().nullable(),
  /** The client's idempotency key (Letta's `otid`) of the message that started it. */
  idempotency_key: z.string().nullable(),
  created_at_ms: z.number(),
  completed_at_ms: z.number().nullable(),
  /** Tokens and model calls of the run, once it ended. */
  usage: Usage.nullable().default(null),
  /** The verifier gate's outcome, for a type with `verify`. */
  verification: RunVerification.nullable().default(null),
  /**
   * The model handles that answered the run's calls, in order of first answer: the agent's
   * model, or a fallback that answered while it was down (then both may appear).
   */
  models: z.array(z.string()).default([]),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** A durable wake-up: a paused session's end, or an approval's expiry. */
export const TimerRecord = z.object({
  agent_id: z.string(),
  kind: z.enum(["wake", "approval_expiry"]),
  due_at_ms: z.number(),
});
export type TimerRecord = z.infer<typeof TimerRecord>;
