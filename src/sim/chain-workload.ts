import { pick, type Random, randomInt } from "../core/random.js";
import type { ChainAgentRun, ChainRunRecord } from "../records/chain-run.js";
import { errorCode, send, type WorkloadLog } from "./client-ops.js";
import type { SimWorld } from "./sim-world.js";

/** What happens to a chain run while its stage agents are at work. */
const DISRUPTIONS = ["crash", "cancel", "answer", "message_agent", "none"] as const;

/** How long (simulated) a client waits for a run to settle before it stops waiting. */
const PATIENCE_MS = 2 * 60 * 60_000;

/**
 * Chains under the usual faults: runs of every configured chain started, cancelled, their
 * approvals answered (yes or no), their stage agents sent messages of their own, and the
 * process crashed and restarted while their stage agents work. Runs after the other workload
 * and its recovery (faults on again), so that those draw what they drew before chains existed.
 */
export async function runChains(world: SimWorld, random: Random, log: WorkloadLog): Promise<void> {
  // Logical time for messages goes on from where the workload before left it.
  const times = [...log.messages.values()].flatMap((m) => [m.issuedAt, m.ackedAt ?? 0]);
  let tick = Math.max(0, ...times.filter((t) => t < Number.MAX_SAFE_INTEGER)) + 1;
  const now = () => tick++;
  world.faults.enable();
  world.enableChains();
  world.crash("restart with chains");
  await world.boot();
  for (let round = randomInt(random, 2, 6); round > 0; round -= 1) {
    const ops = Array.from({ length: randomInt(random, 1, 4) }, () =>
      operation(world, random, log, now),
    );
    await world.drive(Promise.allSettled(ops.map((op) => op())));
  }
}

function operation(
  world: SimWorld,
  random: Random,
  log: WorkloadLog,
  now: () => number,
): () => Promise<void> {
  const roll = random.next();
  const runs = log.chains.runs;
  if (runs.length === 0 || roll < 0.45) return () => startChain(world, random, log, now);
  const runId = pick(random, runs);
  if (roll < 0.6) return () => answer(world, log, runId, random.next() < 0.7);
  if (roll < 0.68) return () => cancel(world, log, runId);
  if (roll < 0.76) {
    return async () => {
      world.crash("workload");
      await world.boot();
    };
  }
  if (roll < 0.86) return async () => world.clock.advance(randomInt(random, 1, 40) * 60_000);
  return async () => void (await follow(world, runId));
}

/** Starts a run of a random chain and disturbs it while its stage agents work. */
async function startChain(
  world: SimWorld,
  random: Random,
  log: WorkloadLog,
  now: () => number,
): Promise<void> {
  const chain = pick(random, [...world.config.chains.values()]);
  const runner = world.chains;
  if (!runner) return;
  let runId: string;
  try {
    runId = (
      await world.alive(runner.start("default", chain, `question ${log.chains.runs.length}`))
    ).id;
  } catch (error) {
    world.log(`chain start ${chain.name} -> ${errorCode(error)}`);
    return;
  }
  log.chains.runs.push(runId);
  log.chains.counts.chain_runs_started += 1;
  world.log(`chain start ${chain.name} -> ${runId}`);
  const disruption = pick(random, DISRUPTIONS);
  if (disruption === "answer") return answerAsAsked(world, random, log, runId);
  if (disruption === "none") return void (await follow(world, runId));
  const agent = await agentAtWork(world, random, runId);
  if (!agent) return;
  world.log(`mid-chain ${disruption}: ${agent.agent_id} of ${runId}`);
  if (disruption === "crash") {
    log.chains.counts.crashes_mid_chain += 1;
    world.crash("mid-chain");
    await world.boot();
  } else if (disruption === "cancel") {
    await cancel(world, log, runId);
  } else {
    // A client talks to a stage agent directly; its messages are checked like any agent's.
    log.chains.counts.chain_agent_messages += 1;
    log.children.add(agent.agent_id);
    await send(world, log, random, agent.agent_id, `otid-${world.ids.next("m")}`, now);
  }
  await follow(world, runId);
}

/** Waits (in simulated time) until a stage agent of the run is at work; null if none was. */
async function agentAtWork(
  world: SimWorld,
  random: Random,
  runId: string,
): Promise<ChainAgentRun | null> {
  for (let poll = 0; poll < 60; poll += 1) {
    await world.clock.sleep(poll < 30 ? 1 : 100);
    const run = await current(world, runId);
    if (!run || (run.status !== "running" && run.status !== "awaiting_approval")) return null;
    const working = run.stages.flatMap((stage) =>
      [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])].filter(
        (agent) => agent.status === "running",
      ),
    );
    if (working.length > 0) return pick(random, working);
  }
  return null;
}

/** Follows the run as a client waiting on it, answering what it asks for as it asks. */
async function answerAsAsked(
  world: SimWorld,
  random: Random,
  log: WorkloadLog,
  runId: string,
): Promise<void> {
  for (let round = 0; round < 4; round += 1) {
    const run = await follow(world, runId);
    if (run?.status !== "awaiting_approval") return;
    await answer(world, log, runId, random.next() < 0.75);
  }
}

/** Answers every approval the run waits for, all yes or all no. */
export async function answer(
  world: SimWorld,
  log: WorkloadLog,
  runId: string,
  approve: boolean,
): Promise<void> {
  const runner = world.chains;
  const run = await current(world, runId);
  if (!runner || !run || run.pending_approvals.length === 0) return;
  const decisions = run.pending_approvals.map((a) => ({
    tool_call_id: a.tool_call.tool_call_id,
    approve,
    reason: approve ? null : "no",
  }));
  if (approve) log.chains.counts.chain_approvals += decisions.length;
  else log.chains.counts.chain_denials += decisions.length;
  const what = `chain approve ${runId} ${decisions.length} ${approve}`;
  try {
    await world.alive(runner.approve(runId, decisions));
    world.log(`${what} -> ok`);
  } catch (error) {
    world.log(`${what} -> ${errorCode(error)}`);
  }
}

async function cancel(world: SimWorld, log: WorkloadLog, runId: string): Promise<void> {
  const runner = world.chains;
  if (!runner) return;
  log.chains.counts.chain_cancels += 1;
  try {
    const cancelled = await world.alive(runner.cancel(runId));
    world.log(`chain cancel ${runId} -> ${cancelled}`);
  } catch (error) {
    world.log(`chain cancel ${runId} -> ${errorCode(error)}`);
  }
}

/**
 * Waits until the run settles (it ended, or waits for approval), for a while: a client gives
 * up after a time, and the process may die first. The run as it settled, or null.
 */
export async function follow(
  world: SimWorld,
  runId: string,
  patienceMs = PATIENCE_MS,
): Promise<ChainRunRecord | null> {
  const runner = world.chains;
  if (!runner) return null;
  const timeout = new AbortController();
  const gaveUp = world.clock.sleep(patienceMs, timeout.signal).then(
    () => null,
    () => null,
  );
  try {
    const run = await world.alive(Promise.race([runner.settled(runId), gaveUp]));
    world.log(`chain ${runId} -> ${run ? run.status : "still running"}`);
    return run;
  } catch (error) {
    world.log(`chain ${runId} -> ${errorCode(error)}`);
    return null;
  } finally {
    timeout.abort();
  }
}

async function current(world: SimWorld, runId: string): Promise<ChainRunRecord | null> {
  return (await world.chains?.get(runId).catch(() => null)) ?? null;
}

/**
 * The end of the recovery: every unfinished chain run (the restarted process drives them) is
 * followed until it ends, its approvals answered yes as they come.
 */
export async function settleChains(world: SimWorld, log: WorkloadLog): Promise<void> {
  // Without chains the recovery stays exactly what it was: not even a tick of the clock.
  if (!world.chains) return;
  for (let round = 0; round < 12; round += 1) {
    const unfinished = await world.drive(world.disk.unfinishedChainRuns());
    if (unfinished.status !== "fulfilled" || unfinished.value.length === 0) return;
    for (const run of unfinished.value) {
      const settled = await world.drive(follow(world, run.id, 24 * 60 * 60_000));
      if (settled.status === "fulfilled" && settled.value?.status === "awaiting_approval")
        await world.drive(answer(world, log, run.id, true));
    }
  }
}
