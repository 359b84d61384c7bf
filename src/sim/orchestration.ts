import { pick, type Random } from "../core/random.js";
import type { AgentRecord } from "../records/agent-record.js";
import { spawnKey } from "../runtime/child-spawner.js";
import { approvalsBelow } from "../runtime/sub-agents.js";
import type { AgentOverrides } from "../types/overrides.js";
import { outcome, send, type WorkloadLog } from "./client-ops.js";
import type { SimWorld } from "./sim-world.js";

/**
 * What a user may narrow on an orchestrator, so that its sub-agents have a policy to be held to:
 * tools denied or outside an allow list, stricter approvals and profile, a shallower spawn
 * depth. Spawning itself (an `exec` tool at full access) stays possible.
 */
export function orchestratorOverrides(random: Random): AgentOverrides {
  const tools: NonNullable<AgentOverrides["tools"]> = {};
  const overrides: AgentOverrides = {};
  if (random.next() < 0.3)
    tools.deny = [pick(random, ["memory_insert", "core_memory_append", "sim_lookup"])];
  if (random.next() < 0.15)
    tools.allow = [
      "spawn_agent",
      "list_agent_types",
      "send_message",
      "sim_lookup",
      "memory_insert",
    ];
  if (random.next() < 0.2) tools.approval = pick(random, ["per_session", "per_action"] as const);
  if (random.next() < 0.2) overrides.policy_profile = pick(random, ["standard", "strict"] as const);
  if (random.next() < 0.15) overrides.limits = { max_spawn_depth: 1 };
  return Object.keys(tools).length > 0 ? { ...overrides, tools } : overrides;
}

/** What happens to an orchestrator's family while its sub-agents run. */
const DISRUPTIONS = [
  "crash",
  "cancel_parent",
  "cancel_child",
  "message_child",
  "approve",
  "none",
] as const;
type Disruption = (typeof DISRUPTIONS)[number];

/**
 * A task for an orchestrator, disturbed while its sub-agents run: the process crashes and
 * restarts, a parent (at any level) or a child is cancelled, a child gets a message of its own
 * from the client, or the sub-agents' approvals are answered through the orchestrator before
 * its send returns.
 */
export async function orchestrate(
  world: SimWorld,
  log: WorkloadLog,
  random: Random,
  bossId: string,
  now: () => number,
): Promise<void> {
  const otid = `otid-${world.ids.next("m")}`;
  let settled = false;
  const sending = send(world, log, random, bossId, otid, now).finally(() => {
    settled = true;
  });
  const disruption = pick(random, DISRUPTIONS);
  if (disruption === "approve") await approveThroughParent(world, log, bossId, () => settled);
  else if (disruption !== "none") {
    const child = await activeChild(world, random, bossId, () => settled);
    if (child) await disrupt(world, log, random, disruption, child, now);
  }
  await sending;
}

async function disrupt(
  world: SimWorld,
  log: WorkloadLog,
  random: Random,
  disruption: Exclude<Disruption, "approve" | "none">,
  child: AgentRecord,
  now: () => number,
): Promise<void> {
  const parentId = child.parent_id ?? "";
  world.log(`mid-spawn ${disruption}: ${child.id} of ${parentId}`);
  switch (disruption) {
    case "crash":
      log.counts.crashes_mid_spawn += 1;
      world.crash("mid-spawn");
      await world.boot();
      return;
    case "cancel_parent":
      log.counts.cancels_mid_spawn += 1;
      return outcome(world, `cancel ${parentId}`, world.runtime.cancel(parentId));
    case "cancel_child":
      log.counts.cancels_mid_spawn += 1;
      return outcome(world, `cancel ${child.id}`, world.runtime.cancel(child.id));
    case "message_child":
      log.counts.child_messages += 1;
      log.children.add(child.id);
      return send(world, log, random, child.id, `otid-${world.ids.next("m")}`, now);
  }
}

/**
 * Waits (in simulated time) until a sub-agent somewhere below the orchestrator is at its task
 * (not yet delivered, or its run going on), and picks one; null if the send ended first.
 */
async function activeChild(
  world: SimWorld,
  random: Random,
  bossId: string,
  settled: () => boolean,
): Promise<AgentRecord | null> {
  for (let poll = 0; poll < 60 && !settled(); poll += 1) {
    await world.clock.sleep(poll < 30 ? 1 : 100);
    const active = await activeBelow(world, bossId);
    if (active.length > 0) return pick(random, active);
  }
  return null;
}

async function activeBelow(world: SimWorld, agentId: string): Promise<AgentRecord[]> {
  const found: AgentRecord[] = [];
  for (const child of await world.disk.listChildren(agentId)) {
    const { parent_run_id: runId, spawn_call_id: callId } = child.metadata;
    if (typeof runId !== "string" || typeof callId !== "string") continue;
    const run = await world.disk.findRunByKey(child.id, spawnKey(runId, callId));
    if (!run || run.status === "running") found.push(child);
    found.push(...(await activeBelow(world, child.id)));
  }
  return found;
}

/** Waits until sub-agents below the orchestrator ask for approval, and answers through it. */
async function approveThroughParent(
  world: SimWorld,
  log: WorkloadLog,
  bossId: string,
  settled: () => boolean,
): Promise<void> {
  for (let poll = 0; poll < 60 && !settled(); poll += 1) {
    await world.clock.sleep(poll < 30 ? 1 : 100);
    const below = await approvalsBelow(world.disk, bossId);
    if (below.length === 0) continue;
    log.counts.approvals_through_parent += below.length;
    const decisions = below.map((a) => ({
      tool_call_id: a.message.tool_call.tool_call_id,
      approve: true,
      reason: null,
    }));
    const what = `mid-spawn approve ${bossId} children ${decisions.length}`;
    return outcome(world, what, world.runtime.approve(bossId, decisions));
  }
}
