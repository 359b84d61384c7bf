import type { Random } from "../core/random.js";
import type { RunOutcome } from "../runtime/engine.js";
import { PendingApprovalError } from "../runtime/outcomes.js";
import { approvalsBelow } from "../runtime/sub-agents.js";
import { answerFor, offersClientTool, SIM_CLIENT_TOOL } from "./client-tool-sim.js";
import type { SimWorld } from "./sim-world.js";

/** A message the simulated client sent: acknowledged once a send resolved. */
export interface SentMessage {
  otid: string;
  agentId: string;
  /** The logical time it was first sent, and when it was acknowledged. */
  issuedAt: number;
  ackedAt: number | null;
}

/** What the workload did to orchestrators while their sub-agents ran, for the summary. */
export interface OrchestrationCounts {
  /** Sub-agents' approvals answered through an ancestor (`engine.approve(parent, …)`). */
  approvals_through_parent: number;
  cancels_mid_spawn: number;
  crashes_mid_spawn: number;
  child_messages: number;
  /** Calls of the client's own tool it answered with a result. */
  client_tool_returns: number;
}

/** What the chain workload did, for the summary. */
export interface ChainCounts {
  chain_runs_started: number;
  chain_cancels: number;
  chain_approvals: number;
  chain_denials: number;
  crashes_mid_chain: number;
  /** Messages a client sent a chain's stage agent directly while its chain ran. */
  chain_agent_messages: number;
}

export interface ChainLog {
  /** The chain runs the workload started (and was told of). */
  runs: string[];
  counts: ChainCounts;
}

/** What the workload did, for the invariants to check against the disk. */
export interface WorkloadLog {
  /** Agents the workload created (never sub-agents), with their types. */
  agents: Map<string, string>;
  deleted: Set<string>;
  messages: Map<string, SentMessage>;
  /** Sub-agents the workload sent messages to directly, while their parents drove them. */
  children: Set<string>;
  counts: OrchestrationCounts;
  /** Chain runs the workload started and what it did to them. */
  chains: ChainLog;
}

export function emptyLog(): WorkloadLog {
  return {
    agents: new Map(),
    deleted: new Set(),
    messages: new Map(),
    children: new Set(),
    counts: {
      approvals_through_parent: 0,
      cancels_mid_spawn: 0,
      crashes_mid_spawn: 0,
      child_messages: 0,
      client_tool_returns: 0,
    },
    chains: {
      runs: [],
      counts: {
        chain_runs_started: 0,
        chain_cancels: 0,
        chain_approvals: 0,
        chain_denials: 0,
        crashes_mid_chain: 0,
        chain_agent_messages: 0,
      },
    },
  };
}

/**
 * Sends a message as a client would; an acknowledged send is recorded. A run that stops for
 * approvals its sub-agents wait for is sometimes answered at once, through the agent that was
 * sent to, with the tool call ids its outcome lists.
 */
export async function send(
  world: SimWorld,
  log: WorkloadLog,
  random: Random,
  agentId: string,
  otid: string,
  now: () => number,
): Promise<void> {
  const sent = log.messages.get(otid) ?? { otid, agentId, issuedAt: now(), ackedAt: null };
  log.messages.set(otid, sent);
  try {
    const options = offersClientTool(otid) ? { clientTools: [SIM_CLIENT_TOOL] } : {};
    const result = await world.alive(
      world.runtime.send(agentId, { content: `message ${otid}`, otid }, options),
    );
    if (sent.ackedAt === null) sent.ackedAt = now();
    world.log(`send ${otid} -> ${result.duplicate ? "duplicate" : result.stopReason}`);
    await answerChildApprovals(world, log, random, agentId, result);
  } catch (error) {
    world.log(`send ${otid} -> ${errorCode(error)}`);
    if (error instanceof PendingApprovalError)
      await approveAll(world, log, await approver(world, agentId), true);
  }
}

/**
 * Who answers an agent's approvals: the highest ancestor that waits for it (its approvals show
 * there), or the agent itself when nobody waits for it (a run of its own, not a task).
 */
async function approver(world: SimWorld, agentId: string): Promise<string> {
  let current = agentId;
  for (let hops = 0; hops < 8; hops += 1) {
    const record = await world.disk.getAgent(current);
    const parentId = record?.parent_id;
    if (!parentId) return current;
    const parent = await world.disk.loadSession(parentId);
    const waits = parent?.pending.some(
      (c) => c.status === "awaiting_child" && c.child_agent_id === current,
    );
    if (!waits) return current;
    current = parentId;
  }
  return current;
}

/** Answers, through the parent, what its sub-agents ask for, as long as the outcome lists some. */
async function answerChildApprovals(
  world: SimWorld,
  log: WorkloadLog,
  random: Random,
  agentId: string,
  first: RunOutcome,
): Promise<void> {
  let outcome = first;
  for (let round = 0; round < 4 && outcome.childApprovals.length > 0; round += 1) {
    if (random.next() < 0.25) return; // Left for a later approval or the recovery.
    const approve = random.next() < 0.75;
    const decisions = outcome.childApprovals.map((a) => ({
      tool_call_id: a.message.tool_call.tool_call_id,
      approve,
      reason: approve ? null : "no",
    }));
    log.counts.approvals_through_parent += decisions.length;
    const what = `approve ${agentId} children ${decisions.length} ${approve}`;
    try {
      outcome = await world.alive(world.runtime.approve(agentId, decisions));
      world.log(`${what} -> ${outcome.stopReason}`);
    } catch (error) {
      world.log(`${what} -> ${errorCode(error)}`);
      return;
    }
  }
}

/**
 * Answers what the agent waits for: its own approvals, or its sub-agents' (through it, with the
 * ids from `approvalsBelow`).
 */
export async function approveAll(
  world: SimWorld,
  log: WorkloadLog,
  agentId: string,
  approve: boolean,
): Promise<void> {
  const state = await world.runtime.session(agentId).catch(() => null);
  const own = state?.pending.filter((c) => c.status === "awaiting_approval") ?? [];
  const below =
    state?.phase === "awaiting_children"
      ? await approvalsBelow(world.store, agentId).catch(() => [])
      : [];
  const decisions = [
    // The client runs its own tools: it answers their calls with a result, not an approval.
    ...own.map((call) => answerFor(call, state?.client_tools ?? [], approve)),
    ...below.map((a) => ({
      tool_call_id: a.message.tool_call.tool_call_id,
      approve,
      reason: approve ? null : "no",
    })),
  ];
  if (decisions.length === 0) return;
  log.counts.approvals_through_parent += below.length;
  log.counts.client_tool_returns += decisions.filter((d) => "type" in d).length;
  await outcome(world, `approve ${agentId} ${approve}`, world.runtime.approve(agentId, decisions));
}

export async function outcome(
  world: SimWorld,
  what: string,
  work: Promise<unknown>,
): Promise<void> {
  try {
    await world.alive(work);
    world.log(`${what} -> ok`);
  } catch (error) {
    world.log(`${what} -> ${errorCode(error)}`);
  }
}

export const errorCode = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : String(error);
