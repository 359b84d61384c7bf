import { z } from "zod";
import { ToolName } from "../tools/tool-declaration.js";
import {
  Isolation,
  Limits,
  ModelFallbacks,
  ReasoningSettings,
  StructuredOutput,
} from "./agent-type.js";
import { ApprovalPolicy, ModelHandle, PolicyProfile, ToolAccess } from "./axes.js";
import { EmbeddingHandle } from "./embedding-handle.js";

/**
 * What one agent sets on top of its type. Model, its fallbacks and prompt are free to change
 * (they choose who answers, not what the agent may do); everything
 * about tools, memory switches, limits and isolation can only narrow the type, never widen
 * past its ceiling (its allow list, deny list, access level, limits and switches).
 */
export const AgentOverrides = z.strictObject({
  model: ModelHandle.optional(),
  /** Replaces the type's fallback handles; `[]` turns fallbacks off for this agent. */
  model_fallbacks: ModelFallbacks.optional(),
  /** Replaces the type's reasoning settings (its tokens still count against the turn's limit). */
  reasoning: ReasoningSettings.nullable().optional(),
  /** Replaces the type's output schema (single_shot types only); null asks for free text. */
  structured_output: StructuredOutput.nullable().optional(),
  system_prompt: z.string().optional(),
  tools: z
    .strictObject({
      packs: z.array(z.string().min(1)).optional(),
      include: z.array(ToolName).optional(),
      allow: z.array(ToolName).nullable().optional(),
      deny: z.array(ToolName).optional(),
      access: ToolAccess.optional(),
      approval: ApprovalPolicy.optional(),
    })
    .optional(),
  memory: z
    .strictObject({
      archival: z.boolean().optional(),
      conversation_search: z.boolean().optional(),
      /** Chooses how memory is searched, not what the agent may do: free to change. */
      embedding: EmbeddingHandle.nullable().optional(),
    })
    .optional(),
  limits: Limits.partial().optional(),
  heartbeats: z.boolean().optional(),
  isolation: Isolation.partial().optional(),
  policy_profile: PolicyProfile.optional(),
  intent_required: z.boolean().optional(),
});
export type AgentOverrides = z.infer<typeof AgentOverrides>;
