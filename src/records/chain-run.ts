import { z } from "zod";
import { Usage } from "./agent-record.js";
import { ToolCall } from "./messages.js";

/**
 * A chain run as stored: one durable record per run, rewritten whole as it moves on. It names
 * every stage agent it created (ids derived from the run, so a restart finds them again) and
 * what each produced; the agents themselves are ordinary agents with their own runs.
 */
export const ChainRunStatus = z.enum([
  "running",
  "awaiting_approval",
  "completed",
  "failed",
  "cancelled",
]);
export type ChainRunStatus = z.infer<typeof ChainRunStatus>;

/** A stage's or stage agent's state; `skipped` is an agent an `any` stage did not need. */
export const StepStatus = z.enum([
  "pending",
  "running",
  "awaiting_approval",
  "completed",
  "failed",
  "cancelled",
  "skipped",
]);
export type StepStatus = z.infer<typeof StepStatus>;

/** One agent of a stage in one run. */
export const ChainAgentRun = z.object({
  name: z.string(),
  role: z.enum(["agent", "synthesis", "scoring"]),
  agent_id: z.string(),
  agent_type: z.string(),
  status: StepStatus,
  /** The agent's run for its task, once sent. */
  run_id: z.string().nullable(),
  stop_reason: z.string().nullable(),
  output: z.string().nullable(),
  /** `reasoning` when the model gave only reasoning and that is used as the output. */
  output_source: z.enum(["text", "reasoning"]).nullable(),
  error: z.string().nullable(),
  usage: Usage.nullable(),
  started_at_ms: z.number().nullable(),
  ended_at_ms: z.number().nullable(),
});
export type ChainAgentRun = z.infer<typeof ChainAgentRun>;

export const ChainStageRun = z.object({
  name: z.string(),
  status: StepStatus,
  agents: z.array(ChainAgentRun),
  synthesis: ChainAgentRun.nullable(),
  /** What later stages read as `{{stages.NAME.output}}`. */
  output: z.string().nullable(),
  error: z.string().nullable(),
  started_at_ms: z.number().nullable(),
  ended_at_ms: z.number().nullable(),
});
export type ChainStageRun = z.infer<typeof ChainStageRun>;

/** An approval a stage agent waits for; answering it lets the chain go on. */
export const ChainApproval = z.object({
  stage: z.string(),
  agent_id: z.string(),
  agent_name: z.string(),
  tool_call: ToolCall,
});
export type ChainApproval = z.infer<typeof ChainApproval>;

export const ChainScore = z.object({
  /** Null when the scoring agent's answer held no score (the run then failed). */
  value: z.number().nullable(),
  min_score: z.number().nullable(),
  passed: z.boolean(),
  /** The scorer's whole JSON answer (`{score, reasons}`), when its type has an output schema. */
  result: z.record(z.string(), z.unknown()).optional(),
});
export type ChainScore = z.infer<typeof ChainScore>;

export const ChainRunRecord = z.object({
  id: z.string(),
  project_id: z.string(),
  chain: z.string(),
  input: z.string(),
  status: ChainRunStatus,
  stages: z.array(ChainStageRun),
  pending_approvals: z.array(ChainApproval),
  score: ChainScore.nullable(),
  /** Why a failed run failed, naming the stage (and agent) where it did. */
  error: z.object({ stage: z.string().nullable(), message: z.string() }).nullable(),
  /** Set once a cancel was asked for, so that a restart does not carry the run on. */
  cancel_requested: z.boolean(),
  usage: Usage,
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
  completed_at_ms: z.number().nullable(),
});
export type ChainRunRecord = z.infer<typeof ChainRunRecord>;

export const FINISHED_CHAIN_STATUSES: readonly ChainRunStatus[] = [
  "completed",
  "failed",
  "cancelled",
];
