import { pick, type Random, randomInt } from "../core/random.js";
import { newAgent } from "../runtime/new-agent.js";
import { approveAll, emptyLog, errorCode, outcome, send, type WorkloadLog } from "./client-ops.js";
import { orchestrate, orchestratorOverrides } from "./orchestration.js";
import type { SimWorld } from "./sim-world.js";

const TYPES = ["memgpt_agent", "letta_v1_agent", "sim_agent", "verifier"] as const;
/** The mixed workload also runs orchestrators (a third of its agents); the load shapes do not. */
const MIXED_TYPES = [...TYPES, "sim_boss", "sim_boss"] as const;

/**
 * Runs a seeded workload against the world: agents created and deleted, messages sent to one
 * agent concurrently and across many, approvals, cancels, transfers, clock moves, crashes and
 * restarts, and orchestrators' tasks disturbed while their sub-agents run. Every operation's
 * outcome goes to the trace.
 */
export async function runWorkload(
  world: SimWorld,
  random: Random,
  shape: WorkloadShape = "mixed",
): Promise<WorkloadLog> {
  const log = emptyLog();
  let tick = 0;
  const now = () => tick++;
  if (shape !== "mixed") return burst(world, random, log, shape, now);
  for (let i = randomInt(random, 2, 5); i > 0; i -= 1) await createAgent(world, random, log);
  for (let round = randomInt(random, 6, 16); round > 0; round -= 1) {
    const ops = Array.from({ length: randomInt(random, 1, 6) }, () =>
      operation(world, random, log, now),
    );
    await world.drive(Promise.allSettled(ops.map((op) => op())));
  }
  return log;
}

/** `mixed`: everything at random; the others load one dimension hard (the plan's test matrix). */
export type WorkloadShape = "mixed" | "many_agents" | "many_messages";

/** 100 agents with a message each, or one agent with 100 messages, all at once. */
async function burst(
  world: SimWorld,
  random: Random,
  log: WorkloadLog,
  shape: WorkloadShape,
  now: () => number,
) {
  const agents = shape === "many_agents" ? 100 : 1;
  for (let i = 0; i < agents; i += 1) await createAgent(world, random, log, TYPES);
  const ids = [...log.agents.keys()];
  const sends =
    shape === "many_agents"
      ? ids.map((id) => ({ id }))
      : Array.from({ length: 100 }, () => ({ id: ids[0] ?? "" }));
  await world.drive(
    Promise.allSettled(
      sends.map(({ id }) => send(world, log, random, id, `otid-${world.ids.next("m")}`, now)),
    ),
  );
  return log;
}

type Op = () => Promise<void>;

function operation(world: SimWorld, random: Random, log: WorkloadLog, now: () => number): Op {
  const live = [...log.agents.keys()].filter((id) => !log.deleted.has(id));
  const agent = live.length > 0 ? pick(random, live) : null;
  const roll = random.next();
  if (!agent || roll < 0.05) return () => createAgent(world, random, log);
  if (roll < 0.5 && log.agents.get(agent) === "sim_boss" && random.next() < 0.6)
    return () => orchestrate(world, log, random, agent, now);
  if (roll < 0.5) return () => send(world, log, random, agent, `otid-${world.ids.next("m")}`, now);
  const unacked = [...log.messages.values()].filter(
    (m) => m.ackedAt === null && !log.deleted.has(m.agentId),
  );
  if (roll < 0.58 && unacked.length > 0) {
    const retry = pick(random, unacked);
    return () => send(world, log, random, retry.agentId, retry.otid, now);
  }
  if (roll < 0.68) return () => approveAll(world, log, agent, random.next() < 0.7);
  if (roll < 0.72)
    return async () =>
      void world.log(`cancel ${agent} -> ${await world.runtime.cancel(agent).catch(errorCode)}`);
  if (roll < 0.8) return async () => world.clock.advance(randomInt(random, 1, 40) * 60_000);
  if (roll < 0.84) {
    return async () => {
      world.crash("workload");
      await world.boot();
    };
  }
  if (roll < 0.87) {
    return async () => {
      log.deleted.add(agent);
      await outcome(world, `delete ${agent}`, world.runtime.deleteAgent(agent));
    };
  }
  if (roll < 0.9) return () => updateAgent(world, agent);
  if (roll < 0.94 && live.length > 1) {
    const target = pick(
      random,
      live.filter((id) => id !== agent),
    );
    return () => transfer(world, agent, target);
  }
  return () => outcome(world, `resume ${agent}`, world.runtime.resume(agent));
}

async function createAgent(
  world: SimWorld,
  random: Random,
  log: WorkloadLog,
  types: readonly string[] = MIXED_TYPES,
): Promise<void> {
  const type = world.config.registry.get(pick(random, types));
  if (!type) return;
  const toolRules =
    random.next() < 0.25
      ? [
          {
            type: "requires_approval" as const,
            tool_name: pick(random, [
              "memory_insert",
              "sim_lookup",
              "core_memory_append",
              "spawn_agent",
            ]),
          },
        ]
      : [];
  const overrides = type.name === "sim_boss" ? orchestratorOverrides(random) : {};
  const created = newAgent(
    { name: `sim-${log.agents.size}`, type, toolRules, overrides },
    world.ids,
    world.clock.now(),
  );
  const result = await world.drive(world.store.createAgent(created));
  world.log(`create ${created.agent.id} ${type.name} -> ${result.status}`);
  if (result.status === "fulfilled") log.agents.set(created.agent.id, type.name);
}

/** Turns approval for memory_insert on or off, as PATCH /tools/approval does. */
async function updateAgent(world: SimWorld, agentId: string): Promise<void> {
  const work = (async () => {
    const record = await world.store.getAgent(agentId);
    if (!record) return;
    const has = record.tool_rules.some((rule) => rule.type === "requires_approval");
    const tool_rules = has
      ? []
      : [{ type: "requires_approval" as const, tool_name: "memory_insert" }];
    await world.runtime.updateAgent(agentId, {
      tool_rules,
      expectUpdatedAtMs: record.updated_at_ms,
    });
  })();
  await outcome(world, `update ${agentId}`, work);
}

async function transfer(world: SimWorld, from: string, to: string): Promise<void> {
  const state = await world.runtime.session(from).catch(() => null);
  if (!state) return;
  await outcome(
    world,
    `transfer ${from} -> ${to}`,
    world.runtime.transferSession(from, state.session_id, to),
  );
}
