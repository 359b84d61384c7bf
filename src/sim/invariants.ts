import { checkToolCall, effectiveCapabilities } from "../types/capabilities.js";
import { AgentOverrides } from "../types/overrides.js";
import { type ChainSummary, chainInvariants } from "./chain-invariants.js";
import type { WorkloadLog } from "./client-ops.js";
import { clientToolInvariants } from "./client-tool-sim.js";
import type { SimWorld } from "./sim-world.js";
import { type SpawnSummary, spawnInvariants } from "./spawn-invariants.js";
import { wakeUpInvariants } from "./wake-up-invariants.js";

const VALID_IDLE_PHASES = new Set(["idle", "paused", "awaiting_approval"]);

/**
 * Checks the disk after a run against what the workload did. Returns every violation found;
 * the world adds its own (two activations, checkpoints going back) as they happen. The message
 * checks cover the agents the workload made and the sub-agents it sent messages to.
 */
export async function checkInvariants(
  world: SimWorld,
  log: WorkloadLog,
): Promise<{ violations: string[]; spawns: SpawnSummary; chains: ChainSummary }> {
  const violations: string[] = [];
  const disk = world.disk;
  for (const agentId of [...log.agents.keys(), ...log.children]) {
    const record = await disk.getAgent(agentId);
    if (log.deleted.has(agentId)) continue;
    if (!record) {
      violations.push(`agent ${agentId} vanished without being deleted`);
      continue;
    }
    const messages = await disk.listMessages(agentId, { limit: 1_000_000, order: "asc" });
    const otids = messages.flatMap((m) =>
      m.message_type === "user_message" && m.otid ? [m.otid] : [],
    );
    const position = new Map<string, number>();
    otids.forEach((otid, i) => {
      if (position.has(otid)) violations.push(`message ${otid} of ${agentId} is stored twice`);
      else position.set(otid, i);
    });
    const sent = [...log.messages.values()].filter((m) => m.agentId === agentId);
    for (const m of sent) {
      if (m.ackedAt !== null && !position.has(m.otid))
        violations.push(`acknowledged message ${m.otid} of ${agentId} was lost`);
    }
    for (const a of sent) {
      for (const b of sent) {
        const aAt = position.get(a.otid);
        const bAt = position.get(b.otid);
        if (a.ackedAt === null || aAt === undefined || bAt === undefined || b.issuedAt <= a.ackedAt)
          continue;
        if (aAt > bAt)
          violations.push(
            `${agentId}: ${a.otid} was acknowledged before ${b.otid} was sent, yet is stored after it`,
          );
      }
    }
    for (const block of await disk.loadBlocks(agentId)) {
      if (block.value.length > block.limit)
        violations.push(`block ${block.label} of ${agentId} is over its limit`);
    }
    const session = await disk.loadSession(agentId);
    if (session && !VALID_IDLE_PHASES.has(session.phase)) {
      violations.push(`session of ${agentId} is still ${session.phase} after recovery`);
    }
  }
  violations.push(...(await forbiddenExecutions(world, log)));
  violations.push(...repeatedEffects(world));
  violations.push(...(await wakeUpInvariants(disk, [...log.agents.keys(), ...log.children])));
  violations.push(...(await clientToolInvariants(disk, [...log.agents.keys()])));
  const spawned = await spawnInvariants(world, log);
  const chained = await chainInvariants(world, log);
  return {
    violations: [...violations, ...spawned.violations, ...chained.violations],
    spawns: spawned.spawns,
    chains: chained.summary,
  };
}

/** A call of a tool that may not run again (not idempotent) never ran twice, crashes or not. */
function repeatedEffects(world: SimWorld): string[] {
  const runs = new Map<string, number>();
  for (const { tool, key, rerunnable } of world.executed) {
    if (!rerunnable) runs.set(`${tool} ${key}`, (runs.get(`${tool} ${key}`) ?? 0) + 1);
  }
  return [...runs].flatMap(([call, count]) =>
    count > 1 ? [`call ${call} of a tool that is not idempotent ran ${count} times`] : [],
  );
}

/** Every tool that ran must have been offered to its agent; read-only agents never write. */
async function forbiddenExecutions(world: SimWorld, log: WorkloadLog): Promise<string[]> {
  const out: string[] = [];
  const { catalogue, registry } = world.config;
  for (const { agentId, tool } of world.executed) {
    // Sub-agents are not in the log: their type is on their record.
    const record = await world.disk.getAgent(agentId);
    const typeName = log.agents.get(agentId) ?? record?.agent_type;
    const type = typeName ? registry.get(typeName) : undefined;
    if (!type) continue;
    const overrides = AgentOverrides.parse(record?.overrides ?? {});
    const caps = effectiveCapabilities(type, overrides, catalogue);
    if (!checkToolCall(caps, tool).allowed)
      out.push(`forbidden tool ${tool} ran for ${agentId} (${typeName})`);
    const risk = catalogue.tools.get(tool)?.risk;
    if (caps.isolation.read_only && risk !== "read")
      out.push(`read-only agent ${agentId} ran ${tool} (${risk})`);
  }
  return out;
}
