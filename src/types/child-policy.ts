import type { AgentType } from "./agent-type.js";
import { stricterApproval } from "./axes.js";
import type { EffectiveCapabilities } from "./capabilities-schema.js";
import type { AgentOverrides } from "./overrides.js";

/** A parent agent as its sub-agents see it: its type, its own overrides and what they give. */
export interface ChildPolicyParent {
  type: AgentType;
  overrides: AgentOverrides;
  /** `effectiveCapabilities(type, overrides, catalogue)`, as the parent runs with them. */
  capabilities: EffectiveCapabilities;
}

/**
 * The overrides that hold a sub-agent to its parent's policy. The child runs as its own type
 * (its model, prompt, memory, workspace and limits), but never gets a tool its parent denies or
 * lies outside its parent's allow list, never reaches wider (access, read-only, network) or asks
 * approval less often, and may spawn one level less than its parent. What the parent merely does not *offer* is not withheld:
 * an orchestrator offers only spawn tools, yet its researcher child keeps its web tools.
 *
 * Only fields that narrow something are set, so that the stored overrides say what the parent
 * holds the child to and nothing else.
 *
 * @example
 * const overrides = childOverrides({ type, overrides, capabilities });
 * effectiveCapabilities(childType, overrides, catalogue); // narrowed by the parent
 */
export function childOverrides(parent: ChildPolicyParent): AgentOverrides {
  const { type, overrides, capabilities } = parent;
  const own = overrides.tools ?? {};
  const deny = [...new Set([...type.tools.deny, ...(own.deny ?? [])])];
  const allow = intersectAllow(type.tools.allow, own.allow ?? null);
  const approval = stricterApproval(type.tools.approval, own.approval ?? "never");

  // A parent without network must not reach it through a child whose type has it.
  const isolation: NonNullable<AgentOverrides["isolation"]> = {};
  if (capabilities.isolation.read_only) isolation.read_only = true;
  if (!capabilities.isolation.network) isolation.network = false;

  const tools: NonNullable<AgentOverrides["tools"]> = {};
  if (deny.length > 0) tools.deny = deny;
  if (allow !== null) tools.allow = allow;
  if (capabilities.access !== "full") tools.access = capabilities.access;
  if (approval !== "never") tools.approval = approval;

  return {
    ...(Object.keys(tools).length > 0 ? { tools } : {}),
    limits: { max_spawn_depth: Math.max(0, capabilities.limits.max_spawn_depth - 1) },
    ...(Object.keys(isolation).length > 0 ? { isolation } : {}),
    ...(capabilities.policy_profile !== "permissive"
      ? { policy_profile: capabilities.policy_profile }
      : {}),
    ...(capabilities.intent_required ? { intent_required: true } : {}),
  };
}

/** Both allow lists at once: `null` is no list; two lists keep only the names in both. */
function intersectAllow(
  typeAllow: readonly string[] | null,
  agentAllow: readonly string[] | null,
): string[] | null {
  if (typeAllow === null) return agentAllow === null ? null : [...new Set(agentAllow)];
  const unique = [...new Set(typeAllow)];
  return agentAllow === null ? unique : unique.filter((name) => agentAllow.includes(name));
}
