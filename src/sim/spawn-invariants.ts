import type { AgentRecord } from "../records/agent-record.js";
import type { AgentMessage } from "../records/messages.js";
import { spawnDepth, spawnKey } from "../runtime/child-spawner.js";
import type { AgentType } from "../types/agent-type.js";
import { narrowerAccess } from "../types/axes.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import { AgentOverrides } from "../types/overrides.js";
import type { SimWorld } from "./sim-world.js";

const SETTLED = new Set(["idle", "paused"]);

/**
 * Sub-agents after recovery: one child per spawn call; every child's run ended; a parent took a
 * child's answer only after the child's run ended; depth held along every chain; no child
 * allowed more than its parent's type.
 */
export async function spawnInvariants(
  world: SimWorld,
  roots: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  const disk = world.disk;
  const visit = async (parent: AgentRecord, rootMax: number): Promise<void> => {
    const children = await disk.listChildren(parent.id);
    const parentCaps = capabilitiesOf(world, parent);
    if (children.length > 0 && parentCaps && parentCaps.limits.max_spawn_depth < 1)
      out.push(`${parent.id} spawned with a spawn depth limit of 0`);
    const parentMessages = await disk.listMessages(parent.id, { limit: 1_000_000, order: "asc" });
    const calls = new Set<string>();
    for (const child of children) {
      out.push(...(await checkChild(world, parent, child, parentMessages, rootMax, calls)));
      await visit(child, rootMax);
    }
  };
  for (const id of roots) {
    const root = await disk.getAgent(id);
    const caps = root ? capabilitiesOf(world, root) : null;
    if (root && caps) await visit(root, caps.limits.max_spawn_depth);
  }
  return out;
}

async function checkChild(
  world: SimWorld,
  parent: AgentRecord,
  child: AgentRecord,
  parentMessages: readonly AgentMessage[],
  rootMax: number,
  calls: Set<string>,
): Promise<string[]> {
  const out: string[] = [];
  const disk = world.disk;
  const { parent_run_id: runId, spawn_call_id: callId } = child.metadata;
  if (typeof runId !== "string" || typeof callId !== "string")
    return [`child ${child.id} does not say which spawn call made it`];
  if (calls.has(`${runId}:${callId}`)) out.push(`spawn call ${callId} made two children`);
  calls.add(`${runId}:${callId}`);
  const key = spawnKey(runId, callId);
  const tasks = (await disk.listMessages(child.id, { limit: 1_000_000, order: "asc" })).filter(
    (m) => m.message_type === "user_message" && m.otid === key,
  );
  if (tasks.length > 1) out.push(`child ${child.id} got its task ${tasks.length} times`);
  const run = await disk.findRunByKey(child.id, key);
  const session = await disk.loadSession(child.id);
  if (run?.status === "running") out.push(`child ${child.id} never ended its task run`);
  if (session && !SETTLED.has(session.phase))
    out.push(`child ${child.id} is still ${session.phase} after recovery`);
  const answer = parentMessages.find(
    (m): m is Extract<AgentMessage, { message_type: "tool_return_message" }> =>
      m.message_type === "tool_return_message" && m.tool_call_id === callId && m.run_id === runId,
  );
  // A turn that stopped (cancelled) closes its calls without waiting for the children.
  const closed =
    answer && /^not run: |could not take its task|was deleted/.test(answer.tool_return);
  if (answer && !closed) {
    if (!run || run.completed_at_ms === null || run.completed_at_ms > Date.parse(answer.date))
      out.push(`${parent.id} took ${child.id}'s answer before the child's run ended`);
    else if (!answer.tool_return.includes(`stopped with ${run.stop_reason}`))
      out.push(`${parent.id}'s answer from ${child.id} does not match how its run ended`);
  }
  const depth = spawnDepth(child.metadata);
  if (depth !== spawnDepth(parent.metadata) + 1 || depth > rootMax)
    out.push(`child ${child.id} is ${depth} deep under a limit of ${rootMax}`);
  out.push(...policyViolations(world, parent, child));
  return out;
}

/** A child must not be offered what its parent's type denies, nor get wider access. */
function policyViolations(world: SimWorld, parent: AgentRecord, child: AgentRecord): string[] {
  const parentType = world.config.registry.get(parent.agent_type);
  const parentCaps = capabilitiesOf(world, parent);
  const childCaps = capabilitiesOf(world, child);
  if (!parentType || !parentCaps || !childCaps) return [`${child.id} or its parent has no type`];
  const own = AgentOverrides.parse(parent.overrides).tools ?? {};
  const deny = new Set([...parentType.tools.deny, ...(own.deny ?? [])]);
  const allows = [parentType.tools.allow, own.allow ?? null].filter(
    (l): l is string[] => l !== null,
  );
  const out: string[] = [];
  for (const { name } of childCaps.offered) {
    if (deny.has(name) || allows.some((list) => !list.includes(name)))
      out.push(`child ${child.id} is offered ${name}, which its parent's type denies`);
  }
  if (narrowerAccess(childCaps.access, parentCaps.access) !== childCaps.access)
    out.push(`child ${child.id} has wider access (${childCaps.access}) than its parent`);
  return out;
}

function capabilitiesOf(world: SimWorld, record: AgentRecord) {
  const type: AgentType | undefined = world.config.registry.get(record.agent_type);
  if (!type) return null;
  return effectiveCapabilities(
    type,
    AgentOverrides.parse(record.overrides),
    world.config.catalogue,
  );
}
