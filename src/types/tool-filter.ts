import type { ToolDeclaration } from "../tools/tool-declaration.js";
import type { ApprovalPolicy, PolicyProfile, ToolAccess } from "./axes.js";
import { stricterApproval } from "./axes.js";

/** What a type and its agent together allow, flattened for filtering one tool at a time. */
export interface ToolCeiling {
  singleShot: boolean;
  access: ToolAccess;
  readOnly: boolean;
  typeAllow: readonly string[] | null;
  agentAllow: readonly string[] | null;
  typeDeny: readonly string[];
  agentDeny: readonly string[];
  heartbeats: boolean;
  coreMemory: boolean;
  archival: boolean;
  conversationSearch: boolean;
}

const RISKS_BY_ACCESS: Record<ToolAccess, readonly string[]> = {
  none: [],
  read_only: ["read"],
  constrained: ["read", "write"],
  full: ["read", "write", "exec", "network"],
};

/** Why the tool may not be offered, or `undefined` if it may. The first reason found wins. */
export function withholdReason(tool: ToolDeclaration, ceiling: ToolCeiling): string | undefined {
  if (ceiling.singleShot) return "single_shot types call the model once, without tools";
  if (ceiling.access === "none") return "tool access is 'none'";
  if (ceiling.typeDeny.includes(tool.name)) return "denied by the agent type";
  if (ceiling.agentDeny.includes(tool.name)) return "denied by the agent";
  if (ceiling.typeAllow && !ceiling.typeAllow.includes(tool.name)) {
    return "not in the agent type's allow list";
  }
  if (ceiling.agentAllow && !ceiling.agentAllow.includes(tool.name)) {
    return "not in the agent's allow list";
  }
  if (ceiling.readOnly && tool.risk !== "read")
    return `isolation is read-only; the tool's risk is '${tool.risk}'`;
  if (!RISKS_BY_ACCESS[ceiling.access].includes(tool.risk)) {
    return `risk '${tool.risk}' is beyond access '${ceiling.access}'`;
  }
  return missingRequirement(tool, ceiling);
}

function missingRequirement(tool: ToolDeclaration, ceiling: ToolCeiling): string | undefined {
  switch (tool.requires) {
    case "heartbeat":
      return ceiling.heartbeats ? undefined : "heartbeats are off";
    case "core_memory":
      return ceiling.coreMemory ? undefined : "memory depth is 'stateless'";
    case "archival_memory":
      return ceiling.archival ? undefined : "archival memory is off";
    case "conversation_search":
      return ceiling.conversationSearch ? undefined : "conversation search is off";
    case undefined:
      return undefined;
  }
}

const PROFILE_FLOORS: Record<PolicyProfile, Partial<Record<string, ApprovalPolicy>>> = {
  permissive: {},
  standard: { exec: "per_session", network: "per_session" },
  strict: { write: "per_action", exec: "per_action", network: "per_action" },
};

/** When a call of this tool needs approval: read tools never do; others by policy and profile. */
export function approvalFor(
  tool: ToolDeclaration,
  policy: ApprovalPolicy,
  profile: PolicyProfile,
): ApprovalPolicy {
  if (tool.risk === "read") return "never";
  return stricterApproval(policy, PROFILE_FLOORS[profile][tool.risk] ?? "never");
}
