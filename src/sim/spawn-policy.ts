import type { AgentRecord } from "../records/agent-record.js";
import { spawnDepth } from "../runtime/child-spawner.js";
import type { AgentType } from "../types/agent-type.js";
import {
  APPROVAL_ORDER,
  narrowerAccess,
  stricterApproval,
  stricterProfile,
} from "../types/axes.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import { AgentOverrides } from "../types/overrides.js";
import type { WorkloadLog } from "./client-ops.js";
import type { SimWorld } from "./sim-world.js";

/**
 * Depth along a chain: a child is one level below its parent, no deeper than its root's
 * `max_spawn_depth`, made only by a parent that may spawn, and may itself spawn one level less.
 */
export function depthViolations(
  world: SimWorld,
  log: WorkloadLog,
  child: AgentRecord,
  byId: ReadonlyMap<string, AgentRecord>,
): string[] {
  const out: string[] = [];
  const depth = spawnDepth(child.metadata);
  const parent = child.parent_id ? byId.get(child.parent_id) : undefined;
  const childCaps = capabilitiesOf(world, child);
  const parentCaps = parent ? capabilitiesOf(world, parent) : null;
  if (parent && depth !== spawnDepth(parent.metadata) + 1)
    out.push(
      `child ${child.id} is ${depth} deep below a parent ${spawnDepth(parent.metadata)} deep`,
    );
  if (parent && parentCaps) {
    const max = parentCaps.limits.max_spawn_depth;
    if (max < 1) out.push(`${parent.id} made ${child.id} with a spawn depth limit of 0`);
    if (childCaps && childCaps.limits.max_spawn_depth > Math.max(0, max - 1))
      out.push(
        `child ${child.id} may spawn ${childCaps.limits.max_spawn_depth} deep under a parent that may spawn ${max}`,
      );
  }
  const rootMax = rootLimit(world, log, child, byId);
  if (rootMax !== null && depth > rootMax)
    out.push(`child ${child.id} is ${depth} deep under a root limit of ${rootMax}`);
  return out;
}

/** The `max_spawn_depth` of the agent a user made at the top of the chain (deleted or not). */
function rootLimit(
  world: SimWorld,
  log: WorkloadLog,
  child: AgentRecord,
  byId: ReadonlyMap<string, AgentRecord>,
): number | null {
  let current = child;
  for (let hops = 0; hops < 32; hops += 1) {
    if (current.parent_id === null)
      return capabilitiesOf(world, current)?.limits.max_spawn_depth ?? null;
    const parent = byId.get(current.parent_id);
    if (!parent) {
      // Deleted: only a root the workload made (with no overrides) is known by its type.
      const type = world.config.registry.get(log.agents.get(current.parent_id) ?? "");
      return type ? type.limits.max_spawn_depth : null;
    }
    current = parent;
  }
  return null;
}

/**
 * A child is never offered what its parent's type (or the parent's own overrides) denies or
 * leaves off an allow list, never reaches wider, never asks approval less often for a tool with
 * side effects, and never runs under a laxer policy profile or with a writable workspace when
 * its parent's is read-only.
 */
export function policyViolations(
  world: SimWorld,
  parent: AgentRecord,
  child: AgentRecord,
): string[] {
  const parentType = world.config.registry.get(parent.agent_type);
  const parentCaps = capabilitiesOf(world, parent);
  const childCaps = capabilitiesOf(world, child);
  if (!parentType || !parentCaps || !childCaps) return [`${child.id} or its parent has no type`];
  const own = AgentOverrides.parse(parent.overrides).tools ?? {};
  const deny = new Set([...parentType.tools.deny, ...(own.deny ?? [])]);
  const allows = [parentType.tools.allow, own.allow ?? null].filter(
    (l): l is string[] => l !== null,
  );
  const approval = stricterApproval(parentType.tools.approval, own.approval ?? "never");
  const out: string[] = [];
  for (const grant of childCaps.offered) {
    if (deny.has(grant.name) || allows.some((list) => !list.includes(grant.name)))
      out.push(`child ${child.id} is offered ${grant.name}, which its parent's type denies`);
    const laxer = APPROVAL_ORDER.indexOf(grant.approval) < APPROVAL_ORDER.indexOf(approval);
    if (grant.risk !== "read" && laxer)
      out.push(
        `child ${child.id} runs ${grant.name} with approval ${grant.approval}, below ${approval}`,
      );
  }
  if (narrowerAccess(childCaps.access, parentCaps.access) !== childCaps.access)
    out.push(`child ${child.id} has wider access (${childCaps.access}) than its parent`);
  const profile = childCaps.policy_profile;
  if (stricterProfile(profile, parentCaps.policy_profile) !== profile)
    out.push(`child ${child.id} runs under a laxer policy profile (${profile}) than its parent`);
  if (parentCaps.isolation.read_only && !childCaps.isolation.read_only)
    out.push(`child ${child.id} may write although its parent is read-only`);
  return out;
}

export function capabilitiesOf(world: SimWorld, record: AgentRecord) {
  const type: AgentType | undefined = world.config.registry.get(record.agent_type);
  if (!type) return null;
  return effectiveCapabilities(
    type,
    AgentOverrides.parse(record.overrides),
    world.config.catalogue,
  );
}
