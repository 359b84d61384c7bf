import { z } from "zod";
import { RiskClass } from "../tools/tool-declaration.js";
import { Limits, ReasoningSettings } from "./agent-type.js";
import {
  ApprovalPolicy,
  ControlFlow,
  MemoryDepth,
  ModelHandle,
  PolicyProfile,
  ReplyVia,
  ToolAccess,
} from "./axes.js";

/** A tool the agent is offered, and when a call of it needs a human's approval. */
export const ToolGrant = z.object({ name: z.string(), risk: RiskClass, approval: ApprovalPolicy });
export type ToolGrant = z.infer<typeof ToolGrant>;

/** A tool the type or agent names but is not offered, and why. */
export const WithheldTool = z.object({ name: z.string(), reason: z.string() });
export type WithheldTool = z.infer<typeof WithheldTool>;

/** What an agent is offered and may execute: the one answer every part of Holdfast asks. */
export const EffectiveCapabilities = z.object({
  type: z.string(),
  model: ModelHandle.nullable(),
  /** Tried in order when `model` is down; see AgentType.model_fallbacks. */
  model_fallbacks: z.array(ModelHandle).default([]),
  /** Reasoning asked of the model; see AgentType.reasoning. */
  reasoning: ReasoningSettings.nullable().default(null),
  control_flow: ControlFlow,
  include_history: z.boolean(),
  reply_via: ReplyVia,
  access: ToolAccess,
  /** Offered to the model when a request is built; also exactly what may execute. */
  offered: z.array(ToolGrant),
  withheld: z.array(WithheldTool),
  heartbeats: z.boolean(),
  memory: z.object({
    depth: MemoryDepth,
    core_memory: z.boolean(),
    archival: z.boolean(),
    conversation_search: z.boolean(),
    /** See MemorySettings: when an idle session ends, and the recall budget of `learning`. */
    session_idle_minutes: z.int().nullable().default(60),
    recall_tokens: z.int().default(1000),
  }),
  limits: Limits,
  isolation: z.object({
    read_only: z.boolean(),
    workspace_root: z.string().nullable(),
    network: z.boolean(),
  }),
  policy_profile: PolicyProfile,
  intent_required: z.boolean(),
});
export type EffectiveCapabilities = z.infer<typeof EffectiveCapabilities>;
