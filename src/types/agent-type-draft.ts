import { z } from "zod";
import { parseOnce, safeParseOnce } from "../core/tiered-parse.js";
import {
  AgentType,
  Isolation,
  KnownModelHandle,
  Limits,
  MemorySettings,
  ModelFallbacks,
  ReasoningSettings,
  StructuredOutput,
  ToolSettings,
  TypeName,
} from "./agent-type.js";
import { ControlFlow, ExecutionMode, PolicyProfile, ReplyVia } from "./axes.js";

/**
 * The fields a type definition, a `defaults:` section or a built-in may set. Every field is
 * optional: what is missing comes from the type it extends, then the defaults.
 */
const draftFields = {
  control_flow: z.enum([...ControlFlow.options, ...ExecutionMode.options]).optional(),
  include_history: z.boolean().optional(),
  model: KnownModelHandle.nullable().optional(),
  model_fallbacks: ModelFallbacks.optional(),
  reasoning: ReasoningSettings.nullable().optional(),
  structured_output: StructuredOutput.nullable().optional(),
  system_prompt: z.string().optional(),
  reply_via: ReplyVia.optional(),
  tools: ToolSettings.partial().optional(),
  memory: MemorySettings.partial().optional(),
  limits: Limits.partial().optional(),
  heartbeats: z.boolean().optional(),
  isolation: Isolation.partial().optional(),
  policy_profile: PolicyProfile.optional(),
  intent_required: z.boolean().optional(),
  final_answer_at_limit: z.boolean().optional(),
  verify: z
    .strictObject({ with: TypeName, max_rounds: z.int().min(1).max(10).default(2) })
    .nullable()
    .optional(),
};

type RawDraft = { control_flow?: ControlFlow | ExecutionMode; include_history?: boolean };

/** Maps an execution-mode alias onto the control flow and history switch it stands for. */
function normalizeControlFlow<T extends RawDraft>(draft: T, ctx: z.RefinementCtx) {
  const { control_flow: flow, ...rest } = draft;
  if (flow === undefined || ControlFlow.safeParse(flow).success) {
    return { ...rest, ...(flow ? { control_flow: flow as ControlFlow } : {}) };
  }
  const history = flow === "multi";
  const controlFlow: ControlFlow = flow === "autonomous" ? "iterating" : "single_shot";
  if (flow !== "autonomous" && draft.include_history === !history) {
    ctx.addIssue({
      code: "custom",
      path: ["include_history"],
      message: `control_flow '${flow}' means single_shot ${history ? "with" : "without"} history; remove include_history or change control_flow`,
    });
  }
  return {
    ...rest,
    control_flow: controlFlow,
    ...(flow === "autonomous" ? {} : { include_history: history }),
  };
}

/** The `defaults:` section of a config file: a draft without a name. */
export const TypeDefaults = z.strictObject(draftFields).transform(normalizeControlFlow);
export type TypeDefaults = z.output<typeof TypeDefaults>;

/** A type definition as written: a description, what it extends, and the fields it changes. */
export const AgentTypeDraft = z
  .strictObject({
    ...draftFields,
    description: z.string().optional(),
    extends: TypeName.optional(),
  })
  .transform(normalizeControlFlow);
export type AgentTypeDraft = z.output<typeof AgentTypeDraft>;
export type AgentTypeDraftInput = z.input<typeof AgentTypeDraft>;

/** A draft with its name: the form built-ins are written in. */
export interface NamedDraft {
  readonly name: string;
  readonly draft: AgentTypeDraft;
}

/** Defines a built-in type; throws if the definition is malformed (it is code, not input). */
export function defineAgentType(name: string, draft: AgentTypeDraftInput): NamedDraft {
  return { name: parseOnce(TypeName, name), draft: parseOnce(AgentTypeDraft, draft) };
}

type Layer = Partial<Omit<AgentTypeDraft, "extends">> & { extends?: string };

/**
 * Lays `over` on `base`: scalars and lists replace, the nested sections (tools, memory, limits,
 * isolation) merge field by field. Lists replace rather than append so that a type can narrow
 * what it extends; add tools with `tools.include`.
 */
export function mergeDrafts(base: Layer, over: Layer): Layer {
  const merged: Layer = { ...base, ...over };
  merged.tools = { ...base.tools, ...over.tools };
  merged.memory = { ...base.memory, ...over.memory };
  merged.limits = { ...base.limits, ...over.limits };
  merged.isolation = { ...base.isolation, ...over.isolation };
  return merged;
}

/** The fully resolved type from its layers, lowest first; fails if a field is missing or bad. */
export function completeType(
  name: string,
  layers: readonly Layer[],
): z.ZodSafeParseResult<AgentType> {
  const { extends: _ignored, ...merged } = layers.reduce(mergeDrafts, {});
  return safeParseOnce(AgentType, { ...merged, name });
}
