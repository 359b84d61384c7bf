import type { FieldError } from "../core/errors.js";
import type { ToolCatalogue } from "../tools/catalogue.js";
import type { AgentType } from "./agent-type.js";
import { APPROVAL_ORDER, PolicyProfile, TOOL_ACCESS_ORDER } from "./axes.js";
import { effectiveCapabilities } from "./capabilities.js";
import type { AgentOverrides } from "./overrides.js";
import { isWithin } from "./workspace-root.js";

/**
 * Every way the overrides try to widen their type, as field errors. `effectiveCapabilities`
 * clamps such overrides anyway; this tells the user why a request is refused instead.
 */
export function checkOverrides(
  type: AgentType,
  overrides: AgentOverrides,
  catalogue: ToolCatalogue,
): FieldError[] {
  const errors: FieldError[] = [];
  const widen = (path: string, what: string) =>
    errors.push({ path, message: `${what}: agent type '${type.name}' does not allow it` });
  const own = overrides.tools ?? {};

  if (
    own.access &&
    rank(TOOL_ACCESS_ORDER, own.access) > rank(TOOL_ACCESS_ORDER, type.tools.access)
  ) {
    widen("tools.access", `'${own.access}' is wider than '${type.tools.access}'`);
  }
  if (
    own.approval &&
    rank(APPROVAL_ORDER, own.approval) < rank(APPROVAL_ORDER, type.tools.approval)
  ) {
    widen("tools.approval", `'${own.approval}' is looser than '${type.tools.approval}'`);
  }
  const profile = overrides.policy_profile;
  if (
    profile &&
    rank(PolicyProfile.options, profile) < rank(PolicyProfile.options, type.policy_profile)
  ) {
    widen("policy_profile", `'${profile}' is looser than '${type.policy_profile}'`);
  }
  own.packs?.forEach((pack, i) => {
    if (!catalogue.packs.has(pack))
      errors.push({ path: `tools.packs.${i}`, message: `unknown tool pack '${pack}'` });
  });
  const withheld = new Map(
    effectiveCapabilities(type, { tools: { include: own.include ?? [] } }, catalogue).withheld.map(
      (tool) => [tool.name, tool.reason],
    ),
  );
  own.include?.forEach((name, i) => {
    const reason = withheld.get(name);
    if (reason)
      errors.push({
        path: `tools.include.${i}`,
        message: `'${name}' cannot be offered: ${reason}`,
      });
  });
  for (const [field, limit] of Object.entries(overrides.limits ?? {})) {
    const ceiling = type.limits[field as keyof AgentType["limits"]];
    if (limit !== undefined && limit > ceiling)
      widen(`limits.${field}`, `${limit} is above ${ceiling}`);
  }
  if (overrides.heartbeats === true && !type.heartbeats) widen("heartbeats", "heartbeats are off");
  for (const field of ["archival", "conversation_search"] as const) {
    if (overrides.memory?.[field] === true && !type.memory[field])
      widen(`memory.${field}`, `${field} is off`);
  }
  if (overrides.isolation?.read_only === false && type.isolation.read_only) {
    widen("isolation.read_only", "the type is read-only");
  }
  if (overrides.isolation?.network === true && !type.isolation.network) {
    widen("isolation.network", "the type has no network");
  }
  const root = overrides.isolation?.workspace_root;
  if (root && type.isolation.workspace_root && !isWithin(type.isolation.workspace_root, root)) {
    widen("isolation.workspace_root", `'${root}' is outside '${type.isolation.workspace_root}'`);
  }
  if (overrides.structured_output && type.control_flow !== "single_shot") {
    errors.push({
      path: "structured_output",
      message: `an output schema needs a single_shot type; '${type.name}' is ${type.control_flow}`,
    });
  }
  if (overrides.intent_required === false && type.intent_required) {
    widen("intent_required", "the type requires intent");
  }
  return errors;
}

const rank = <T>(order: readonly T[], value: T): number => order.indexOf(value);
