import { z } from "zod";
import { ToolRule } from "./tool-rule.js";

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
});
export type RunRecord = z.infer<typeof RunRecord>;

/** A durable wake-up: a paused session's end, or an approval's expiry. */
export const TimerRecord = z.object({
  agent_id: z.string(),
  kind: z.enum(["wake", "approval_expiry"]),
  due_at_ms: z.number(),
});
export type TimerRecord = z.infer<typeof TimerRecord>;
