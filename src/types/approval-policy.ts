import type { ToolDeclaration } from "../tools/tool-declaration.js";
import type { AgentType } from "./agent-type.js";
import type { AgentOverrides } from "./overrides.js";
import { approvalFor } from "./tool-filter.js";

/**
 * Which policy makes every call of `tool` need a human's approval for this agent, in words a
 * user can act on: the type's approval setting, the type's policy profile, or the agent's own
 * overrides of either. `undefined` when no policy asks for approval (the agent's own
 * `requires_approval` tool rule aside, which it may remove).
 *
 * @example
 * approvalRequiredBy(developer, {}, shell)
 * // "agent type 'developer' requires approval for 'shell' (tools.approval: per_action)"
 */
export function approvalRequiredBy(
  type: AgentType,
  overrides: AgentOverrides,
  tool: ToolDeclaration,
): string | undefined {
  const own = overrides.tools?.approval;
  const sources: [string, string, boolean][] = [
    [
      `agent type '${type.name}' requires`,
      `tools.approval: ${type.tools.approval}`,
      demands(tool, type.tools.approval, "permissive"),
    ],
    [
      `agent type '${type.name}' requires`,
      `policy_profile: ${type.policy_profile}`,
      demands(tool, "never", type.policy_profile),
    ],
    [
      "this agent's overrides require",
      `tools.approval: ${own}`,
      own !== undefined && demands(tool, own, "permissive"),
    ],
    [
      "this agent's overrides require",
      `policy_profile: ${overrides.policy_profile}`,
      overrides.policy_profile !== undefined && demands(tool, "never", overrides.policy_profile),
    ],
  ];
  const found = sources.find(([, , requires]) => requires);
  return found && `${found[0]} approval for '${tool.name}' (${found[1]})`;
}

const demands = (...args: Parameters<typeof approvalFor>) => approvalFor(...args) !== "never";
