import { forkRandom } from "../core/random.js";
import { checkInvariants } from "./invariants.js";
import { SimWorld, type WorldOptions } from "./sim-world.js";
import {
  approveAll,
  errorCode,
  runWorkload,
  type WorkloadLog,
  type WorkloadShape,
} from "./workload.js";

export interface SeedResult {
  seed: number;
  ok: boolean;
  violations: string[];
  traceHash: string;
  faults: Record<string, number>;
  checks: number;
  trace?: string[];
}

/**
 * One simulation: a seeded workload with faults, then a recovery without faults (restart,
 * time moves on, every unacknowledged message is sent again, approvals are answered), then
 * the invariants. The same seed gives the same trace.
 */
export async function runSeed(
  options: WorldOptions & { keepTrace?: boolean; shape?: WorkloadShape },
): Promise<SeedResult> {
  const world = new SimWorld(options);
  const random = forkRandom(world.random, "workload");
  let log: WorkloadLog = { agents: new Map(), deleted: new Set(), messages: new Map() };
  try {
    await world.boot();
    log = await runWorkload(world, random, options.shape);
    await recover(world, log);
  } catch (error) {
    world.violations.push(
      // The message only: a stack names its caller, and a replay must report the same thing.
      `the simulation itself failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const violations = [...world.violations, ...(await checkInvariants(world, log))];
  const result: SeedResult = {
    seed: options.seed,
    ok: violations.length === 0,
    violations,
    traceHash: world.traceHash(),
    faults: world.faults.counts(),
    checks: log.messages.size + log.agents.size + world.executed.length,
  };
  if (options.keepTrace) result.trace = world.trace;
  return result;
}

async function recover(world: SimWorld, log: WorkloadLog): Promise<void> {
  world.faults.disable();
  world.crash("end of workload");
  await world.boot();
  for (let round = 0; round < 20; round += 1) {
    world.clock.advance(25 * 60 * 60_000);
    const live = [...log.agents.keys()].filter((id) => !log.deleted.has(id));
    let waiting = false;
    for (const agentId of live) waiting = (await settle(world, agentId)) || waiting;
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
  await world.drive(world.runtime.shutdown());
}

/**
 * Lets an agent's run that waits for sub-agents stop (they run, fault-free, until they end or
 * ask for an approval), then answers every approval it or its sub-agents wait for. True if the
 * agent was still waiting for something when this began.
 */
async function settle(world: SimWorld, agentId: string): Promise<boolean> {
  const state = await world.drive(world.runtime.session(agentId));
  if (state.status !== "fulfilled") return false;
  const { phase, run_id: runId } = state.value;
  if (phase === "awaiting_children" && runId) {
    await world.drive(world.runtime.awaitRun(agentId, runId));
  }
  await world.drive(approveAll(world, agentId, true));
  return phase === "awaiting_children" || phase === "awaiting_approval";
}
