import { z } from "zod";
import { AgentOverrides } from "../types/overrides.js";
import type { TemplatePart } from "./chain-template.js";

/**
 * Chains as `holdfast.yaml` writes them (`chains:`). Every level (chain, stage, agent) may set
 * what an agent's overrides set (model, tools, limits, approval, …); values inherit defaults →
 * chain → stage → agent, each narrowing its agent type as agent overrides do.
 */
export const StageName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, "a stage name is lowercase letters, digits, _ or -");

export const ChainName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, "a chain name is lowercase letters, digits, _ or -");

const Task = z.string().min(1).max(20_000);

const ChainAgentDraft = AgentOverrides.extend({
  type: z.string().min(1),
  /** How the agent is called in the run; defaults to its type (numbered when repeated). */
  name: StageName.optional(),
  task: Task.optional(),
});

const SynthesisDraft = AgentOverrides.extend({
  type: z.string().min(1).default("synthesis"),
  /** Put before the stage's outputs, which are always appended. */
  task: Task.optional(),
});

const ScoringDraft = AgentOverrides.extend({
  type: z.string().min(1).default("scoring"),
  task: Task.optional(),
  /** The run fails when the score is below this. */
  min_score: z.number().optional(),
});

const StageDraft = AgentOverrides.extend({
  name: StageName,
  description: z.string().max(2000).optional(),
  /** Run the stage's agents at the same time (default: one after another). */
  parallel: z.boolean().default(false),
  /** `all`: every agent must succeed; `any`: the first success ends the stage. */
  success: z.enum(["all", "any"]).default("all"),
  agents: z.array(ChainAgentDraft).optional(),
  synthesis: SynthesisDraft.optional(),
  scoring: ScoringDraft.optional(),
});

export const ChainDraft = AgentOverrides.extend({
  description: z.string().max(2000).optional(),
  stages: z.array(StageDraft),
});
export type ChainDraft = z.infer<typeof ChainDraft>;
export type StageDraft = z.infer<typeof StageDraft>;

export type ChainRole = "agent" | "synthesis" | "scoring";

/** One agent of a stage, resolved: its type exists and its overrides narrow it. */
export interface ChainAgentSpec {
  role: ChainRole;
  name: string;
  type: string;
  overrides: AgentOverrides;
  /** Its task; null means the default for its role. */
  task: TemplatePart[] | null;
}

export interface ChainStage {
  name: string;
  description: string;
  parallel: boolean;
  success: "all" | "any";
  agents: ChainAgentSpec[];
  synthesis: ChainAgentSpec | null;
  /**
   * Set for the scoring stage (always the last). `structured`: the scorer answers JSON that its
   * output schema validated, and the score is its `score` field.
   */
  scoring: { min_score: number | null; structured: boolean } | null;
}

export interface ChainDefinition {
  name: string;
  description: string;
  stages: ChainStage[];
}
