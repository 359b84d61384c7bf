import { z } from "zod";

/**
 * The values of each axis an agent type is configured along. Each axis is independent of
 * the others: any control flow works with any model, tool access or memory depth.
 */

/** How the loop runs: many model calls with tools until a stop, or one call without tools. */
export const ControlFlow = z.enum(["iterating", "single_shot"]);
export type ControlFlow = z.infer<typeof ControlFlow>;

/**
 * Execution modes accepted as aliases of a control flow: `single` is single_shot without
 * history, `multi` is single_shot with history, `autonomous` is iterating.
 */
export const ExecutionMode = z.enum(["single", "multi", "autonomous"]);
export type ExecutionMode = z.infer<typeof ExecutionMode>;

/** How far tools reach: none; read tools; read and write tools; every tool. */
export const ToolAccess = z.enum(["none", "read_only", "constrained", "full"]);
export type ToolAccess = z.infer<typeof ToolAccess>;

/** When a tool that has side effects needs a human's approval before it runs. */
export const ApprovalPolicy = z.enum(["never", "per_session", "per_action"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

/** How long what the agent learns lasts: not at all, one session, forever, forever and distilled. */
export const MemoryDepth = z.enum(["stateless", "session", "persistent", "learning"]);
export type MemoryDepth = z.infer<typeof MemoryDepth>;

/**
 * A governance tier that sets approval floors by risk: `permissive` adds none; `standard`
 * needs approval once per session for exec and network tools; `strict` needs it for every
 * call of any tool with side effects.
 */
export const PolicyProfile = z.enum(["permissive", "standard", "strict"]);
export type PolicyProfile = z.infer<typeof PolicyProfile>;

/** How the agent answers: as plain assistant text, or only through the send_message tool. */
export const ReplyVia = z.enum(["text", "send_message"]);
export type ReplyVia = z.infer<typeof ReplyVia>;

/** A model handle, `provider/model`: `openai/gpt-4.1-mini`, `ollama/qwen3:8b`, `sim/demo`. */
export const ModelHandle = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*\/\S+$/, "a model handle looks like 'provider/model'");
export type ModelHandle = z.infer<typeof ModelHandle>;

/** Orders of the ordered axes, so that "narrower" and "stricter" can be computed. */
export const TOOL_ACCESS_ORDER: readonly ToolAccess[] = ToolAccess.options;
export const APPROVAL_ORDER: readonly ApprovalPolicy[] = ApprovalPolicy.options;

/** The narrower of two access levels. */
export function narrowerAccess(a: ToolAccess, b: ToolAccess): ToolAccess {
  return TOOL_ACCESS_ORDER.indexOf(a) <= TOOL_ACCESS_ORDER.indexOf(b) ? a : b;
}

/** The stricter of two approval policies. */
export function stricterApproval(a: ApprovalPolicy, b: ApprovalPolicy): ApprovalPolicy {
  return APPROVAL_ORDER.indexOf(a) >= APPROVAL_ORDER.indexOf(b) ? a : b;
}

/** The stricter of two policy profiles. */
export function stricterProfile(a: PolicyProfile, b: PolicyProfile): PolicyProfile {
  return PolicyProfile.options.indexOf(a) >= PolicyProfile.options.indexOf(b) ? a : b;
}
