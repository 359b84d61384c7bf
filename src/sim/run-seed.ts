import { forkRandom } from "../core/random.js";
import { runChains, settleChains } from "./chain-workload.js";
import { approveAll, emptyLog, errorCode, type WorkloadLog } from "./client-ops.js";
import { checkInvariants } from "./invariants.js";
import { SimWorld, type WorldOptions } from "./sim-world.js";
import { runWorkload, type WorkloadShape } from "./workload.js";

export interface SeedResult {
  seed: number;
  ok: boolean;
  violations: string[];
  traceHash: string;
  faults: Record<string, number>;
  checks: number;
  /**
   * What the seed did with sub-agents (children made, spawns refused, disruptions, …) and
   * chains (`chain_*`: runs started and how they ended, cancels, approvals, crashes mid-chain).
   */
  orchestration: Record<string, number>;
  trace?: string[];
}

/**
 * One simulation: a seeded workload with faults, then a recovery without faults (restart,
 * time moves on, every unacknowledged message is sent again, approvals are answered); then
 * chains with faults and a recovery again; then the invariants. The same seed gives the same
 * trace.
 */
export async function runSeed(
  options: WorldOptions & {
    keepTrace?: boolean;
    shape?: WorkloadShape;
    /** For debugging a failing seed: sees the world (its disk) once the invariants ran. */
    inspect?: (world: SimWorld) => Promise<void>;
  },
): Promise<SeedResult> {
  const world = new SimWorld(options);
  const random = forkRandom(world.random, "workload");
  let log: WorkloadLog = emptyLog();
  // What the first recovery left wrong: the chain phase's recovery must not hide it.
  let beforeChains: string[] = [];
  try {
    await world.boot();
    log = await runWorkload(world, random, options.shape);
    await recover(world, log);
    if ((options.shape ?? "mixed") === "mixed") {
      // Chains come after, with faults again: what the workload above drew stays as it was.
      beforeChains = (await checkInvariants(world, log)).violations;
      await runChains(world, forkRandom(random, "chains"), log);
      await recover(world, log);
    }
  } catch (error) {
    world.violations.push(
      // The message only: a stack names its caller, and a replay must report the same thing.
      `the simulation itself failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const checked = await checkInvariants(world, log);
  const violations = [...new Set([...world.violations, ...beforeChains, ...checked.violations])];
  const { spawn_calls, children } = checked.spawns;
  const result: SeedResult = {
    seed: options.seed,
    ok: violations.length === 0,
    violations,
    traceHash: world.traceHash(),
    faults: world.faults.counts(),
    checks:
      log.messages.size +
      log.agents.size +
      world.executed.length +
      spawn_calls +
      children +
      log.chains.runs.length +
      checked.chains.chain_stage_agents,
    orchestration: { ...checked.spawns, ...log.counts, ...log.chains.counts, ...checked.chains },
  };
  if (options.keepTrace) result.trace = world.trace;
  await options.inspect?.(world);
  return result;
}

async function recover(world: SimWorld, log: WorkloadLog): Promise<void> {
  world.faults.disable();
  world.crash("end of workload");
  await world.boot();
  // A delete the client never heard back from (the process died) is sent again.
  for (const agentId of log.deleted) {
    if (!(await world.disk.getAgent(agentId))) continue;
    const deleted = await world.drive(world.runtime.deleteAgent(agentId));
    world.log(`recover delete ${agentId} -> ${deleted.status}`);
  }
  // Chains first, while their approvals are fresh (the rounds below move a day at a time).
  await settleChains(world, log);
  for (let round = 0; round < 20; round += 1) {
    world.clock.advance(25 * 60 * 60_000);
    const live = [...log.agents.keys(), ...log.children].filter((id) => !log.deleted.has(id));
    let waiting = false;
    for (const agentId of live) waiting = (await settle(world, log, agentId)) || waiting;
    const unacked = [...log.messages.values()].filter(
      (m) => m.ackedAt === null && !log.deleted.has(m.agentId),
    );
    if (unacked.length === 0 && !waiting) break;
    for (const m of unacked) {
      const sent = await world.drive(
        world.runtime.send(m.agentId, { content: `message ${m.otid}`, otid: m.otid }),
      );
      if (sent.status === "fulfilled") m.ackedAt = Number.MAX_SAFE_INTEGER;
      world.log(
        `recover ${m.otid} -> ${sent.status === "fulfilled" ? "ok" : errorCode(sent.reason)}`,
      );
    }
  }
  await settleChains(world, log);
  world.log("recover: shutdown");
  world.chains?.shutdown();
  await world.drive(world.runtime.shutdown());
}

/**
 * Lets an agent's run that waits for sub-agents stop (they run, fault-free, until they end or
 * ask for an approval), then answers every approval it or its sub-agents wait for, and again
 * while the run goes on asking (an orchestrator may ask once per spawn, and so may its
 * children). True if the agent was still waiting for something when this began.
 */
async function settle(world: SimWorld, log: WorkloadLog, agentId: string): Promise<boolean> {
  let waited = false;
  for (let pass = 0; pass < 12; pass += 1) {
    const state = await world.drive(world.runtime.session(agentId));
    if (state.status !== "fulfilled") return waited;
    const { phase, run_id: runId } = state.value;
    if (phase !== "awaiting_children" && phase !== "awaiting_approval") return waited;
    waited = true;
    if (phase === "awaiting_children" && runId) {
      world.log(`recover: ${agentId} waits for its sub-agents in ${runId}`);
      const stopped = await world.drive(world.runtime.awaitRun(agentId, runId));
      world.log(`recover: ${runId} of ${agentId} -> ${stopped.status}`);
    }
    await world.drive(approveAll(world, log, agentId, true));
  }
  return waited;
}
