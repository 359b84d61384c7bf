import type { ToolCatalogue } from "../tools/catalogue.js";
import type { AgentType, Limits } from "./agent-type.js";
import { narrowerAccess, stricterApproval, stricterProfile } from "./axes.js";
import type { EffectiveCapabilities, ToolGrant, WithheldTool } from "./capabilities-schema.js";
import type { AgentOverrides } from "./overrides.js";
import { approvalFor, type ToolCeiling, withholdReason } from "./tool-filter.js";
import { narrowWorkspaceRoot } from "./workspace-root.js";

/**
 * Computes an agent's capabilities from its type, its own overrides and the tool catalogue.
 * Pure: the same inputs give the same answer. Overrides narrow and never widen: lists of denied
 * tools add up, allow lists intersect, access and limits take the lower, switches turn off only.
 */
export function effectiveCapabilities(
  type: AgentType,
  overrides: AgentOverrides,
  catalogue: ToolCatalogue,
): EffectiveCapabilities {
  const own = overrides.tools ?? {};
  const depth = type.memory.depth;
  const heartbeats = type.heartbeats && overrides.heartbeats !== false;
  const memory = {
    depth,
    core_memory: depth !== "stateless",
    archival: depth !== "stateless" && type.memory.archival && overrides.memory?.archival !== false,
    conversation_search:
      depth !== "stateless" &&
      type.memory.conversation_search &&
      overrides.memory?.conversation_search !== false,
    session_idle_minutes: type.memory.session_idle_minutes,
    recall_tokens: depth === "learning" ? type.memory.recall_tokens : 0,
  };
  const isolation = {
    read_only: type.isolation.read_only || overrides.isolation?.read_only === true,
    workspace_root: narrowWorkspaceRoot(
      type.isolation.workspace_root,
      overrides.isolation?.workspace_root,
    ),
    network: type.isolation.network && overrides.isolation?.network !== false,
  };
  const access = narrowerAccess(type.tools.access, own.access ?? type.tools.access);
  const ceiling: ToolCeiling = {
    singleShot: type.control_flow === "single_shot",
    access,
    readOnly: isolation.read_only,
    typeAllow: type.tools.allow,
    agentAllow: own.allow ?? null,
    typeDeny: type.tools.deny,
    agentDeny: own.deny ?? [],
    heartbeats,
    coreMemory: memory.core_memory,
    archival: memory.archival,
    conversationSearch: memory.conversation_search,
  };
  const approval = stricterApproval(type.tools.approval, own.approval ?? "never");
  const profile = stricterProfile(type.policy_profile, overrides.policy_profile ?? "permissive");

  const offered: ToolGrant[] = [];
  const withheld: WithheldTool[] = [];
  for (const name of candidateTools(type, overrides, catalogue)) {
    const tool = catalogue.tools.get(name);
    if (!tool) {
      withheld.push({ name, reason: "no such tool in the catalogue" });
      continue;
    }
    // The type's own reasons come first; the server's lack (no sandbox) only when none applies.
    const reason = withholdReason(tool, ceiling) ?? catalogue.unavailable.get(name);
    if (reason !== undefined) withheld.push({ name, reason });
    else offered.push({ name, risk: tool.risk, approval: approvalFor(tool, approval, profile) });
  }

  return {
    type: type.name,
    model: overrides.model ?? type.model,
    model_fallbacks: overrides.model_fallbacks ?? type.model_fallbacks,
    reasoning: overrides.reasoning !== undefined ? overrides.reasoning : type.reasoning,
    control_flow: type.control_flow,
    include_history: type.include_history,
    reply_via: type.reply_via,
    access,
    offered,
    withheld,
    heartbeats,
    memory,
    limits: narrowLimits(type.limits, overrides.limits ?? {}),
    isolation,
    policy_profile: profile,
    intent_required: type.intent_required || overrides.intent_required === true,
  };
}

/** The tools a type and agent name, through packs and include, each once, in order. */
function candidateTools(
  type: AgentType,
  overrides: AgentOverrides,
  catalogue: ToolCatalogue,
): Set<string> {
  const packs = [...type.tools.packs, ...(overrides.tools?.packs ?? [])];
  const names = new Set<string>();
  for (const pack of packs) for (const name of catalogue.packs.get(pack) ?? []) names.add(name);
  for (const name of [...type.tools.include, ...(overrides.tools?.include ?? [])]) names.add(name);
  return names;
}

function narrowLimits(limits: Limits, own: Partial<Limits>): Limits {
  return {
    max_iterations: Math.min(limits.max_iterations, own.max_iterations ?? Infinity),
    max_tool_calls_per_turn: Math.min(
      limits.max_tool_calls_per_turn,
      own.max_tool_calls_per_turn ?? Infinity,
    ),
    max_tokens_per_turn: Math.min(limits.max_tokens_per_turn, own.max_tokens_per_turn ?? Infinity),
    max_spawn_depth: Math.min(limits.max_spawn_depth, own.max_spawn_depth ?? Infinity),
  };
}

/** Whether the loop may execute a call of `toolName`: only tools that are offered. */
export function checkToolCall(
  capabilities: EffectiveCapabilities,
  toolName: string,
): { allowed: true; grant: ToolGrant } | { allowed: false; reason: string } {
  const grant = capabilities.offered.find((tool) => tool.name === toolName);
  if (grant) return { allowed: true, grant };
  const withheld = capabilities.withheld.find((tool) => tool.name === toolName);
  return {
    allowed: false,
    reason: withheld
      ? `tool '${toolName}' is not allowed: ${withheld.reason}`
      : `tool '${toolName}' is not offered to this agent`,
  };
}
