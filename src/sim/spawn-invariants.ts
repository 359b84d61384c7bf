import { SPAWN_TOOL } from "../agent/decide.js";
import { derivedId } from "../core/ids.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { AgentMessage } from "../records/messages.js";
import { spawnDepth, spawnKey } from "../runtime/child-spawner.js";
import { childTasks } from "../runtime/sub-agents.js";
import type { WorkloadLog } from "./client-ops.js";
import type { SimWorld } from "./sim-world.js";
import { depthViolations, policyViolations } from "./spawn-policy.js";

/** What the spawn invariants looked at, for the summary. */
export interface SpawnSummary {
  spawn_calls: number;
  children: number;
  /** Spawn calls refused because the caller was at its depth limit. */
  refused_at_limit: number;
  deepest: number;
}

type ToolReturn = Extract<AgentMessage, { message_type: "tool_return_message" }>;

const SETTLED = new Set(["idle", "paused"]);
const ALL = { limit: 1_000_000, order: "asc" } as const;

/**
 * Sub-agents once the world is quiet, over every agent on the disk (those of deleted parents
 * too): one child per spawn call and one task run per child; every task run ended; a parent
 * took a child's answer only after the child's run ended (or said its own turn stopped); no
 * child at work that its parent does not wait for; depth held along every chain; no child
 * allowed more than its parent.
 */
export async function spawnInvariants(
  world: SimWorld,
  log: WorkloadLog,
): Promise<{ violations: string[]; spawns: SpawnSummary }> {
  const out: string[] = [];
  const spawns: SpawnSummary = { spawn_calls: 0, children: 0, refused_at_limit: 0, deepest: 0 };
  const agents = await world.disk.listAgents("default", ALL);
  const byId = new Map(agents.map((a) => [a.id, a]));
  const made = new Map<string, AgentRecord[]>();
  for (const agent of agents) {
    if (agent.parent_id === null) continue;
    const { parent_run_id: runId, spawn_call_id: callId } = agent.metadata;
    if (typeof runId !== "string" || typeof callId !== "string") {
      out.push(`child ${agent.id} does not say which spawn call made it`);
      continue;
    }
    const key = spawnKey(runId, callId);
    made.set(key, [...(made.get(key) ?? []), agent]);
  }
  for (const agent of agents) {
    out.push(...(await checkSpawnCalls(world, agent, made, spawns)));
    out.push(...(await checkWaiting(world, agent)));
  }
  for (const child of agents) {
    if (child.parent_id === null) continue;
    const parent = byId.get(child.parent_id) ?? null;
    spawns.children += 1;
    spawns.deepest = Math.max(spawns.deepest, spawnDepth(child.metadata));
    out.push(...(await checkChild(world, child, parent)));
    out.push(...depthViolations(world, log, child, byId));
    if (parent) out.push(...policyViolations(world, parent, child));
  }
  return { violations: out, spawns };
}

/** Each spawn call made at most one child, and its answer (if committed) is a true one. */
async function checkSpawnCalls(
  world: SimWorld,
  agent: AgentRecord,
  made: ReadonlyMap<string, AgentRecord[]>,
  spawns: SpawnSummary,
): Promise<string[]> {
  const out: string[] = [];
  const messages = await world.disk.listMessages(agent.id, ALL);
  const returns = new Map<string, ToolReturn>();
  for (const m of messages) {
    // A handed-over session's copies (`id~target`) were checked where they were made.
    if (m.message_type === "tool_return_message" && m.run_id && !m.id.includes("~"))
      returns.set(spawnKey(m.run_id, m.tool_call_id), m);
  }
  for (const m of messages) {
    if (m.message_type !== "tool_call_message" || m.tool_call.name !== SPAWN_TOOL || !m.run_id)
      continue;
    if (!m.id.includes("~")) spawns.spawn_calls += 1;
    const key = spawnKey(m.run_id, m.tool_call.tool_call_id);
    const children = made.get(key) ?? [];
    if (children.length > 1)
      out.push(`spawn call ${key} of ${agent.id} made ${children.length} children`);
    const answer = returns.get(key);
    if (answer) out.push(...(await checkAnswer(world, agent, key, answer, children, spawns)));
  }
  return out;
}

/**
 * A spawn call's tool return: the answer of a child whose task run had ended by then and whose
 * stop it names; or the parent's own turn stopping (and its run then says so); or a child that
 * could not take its task or was deleted; anything else refused the call, which made no child.
 */
async function checkAnswer(
  world: SimWorld,
  agent: AgentRecord,
  key: string,
  answer: ToolReturn,
  children: readonly AgentRecord[],
  spawns: SpawnSummary,
): Promise<string[]> {
  const text = answer.tool_return;
  const child = children[0];
  const from = /^\S+ \((\S+)\) stopped with /.exec(text);
  if (from) {
    if (!child || child.id !== from[1])
      return [`${agent.id} took an answer for ${key} from ${from[1]}, which that call never made`];
    const run = await world.disk.findRunByKey(child.id, key);
    if (!run || run.completed_at_ms === null || run.completed_at_ms > Date.parse(answer.date))
      return [`${agent.id} took ${child.id}'s answer before the child's run ended`];
    if (!text.includes(`stopped with ${run.stop_reason ?? run.status}:`))
      return [`${agent.id}'s answer from ${child.id} does not match how its run ended`];
    return [];
  }
  const stopped = /^not run: the turn stopped \((\w+)\)/.exec(text);
  if (stopped) {
    const run = answer.run_id ? await world.disk.getRun(answer.run_id) : null;
    if (run && run.status !== "running" && run.stop_reason !== stopped[1])
      return [
        `${agent.id} closed ${key} as stopped (${stopped[1]}) in a run that ${run.stop_reason}`,
      ];
    return [];
  }
  if (/ could not take its task: /.test(text)) return [];
  if (/ was deleted before it answered$/.test(text))
    return child ? [`${agent.id} was told ${child.id} was deleted, yet it exists`] : [];
  if (text.startsWith("cannot spawn: the spawn depth limit")) spawns.refused_at_limit += 1;
  return child
    ? [`${key} of ${agent.id} was refused (${text.slice(0, 60)}), yet made ${child.id}`]
    : [];
}

/**
 * One child: its id is the one its spawn call derives, it got its task at most once and ran it
 * once, that run ended, and nothing of it is still at work unless its parent waits for it.
 */
async function checkChild(
  world: SimWorld,
  child: AgentRecord,
  parent: AgentRecord | null,
): Promise<string[]> {
  const out: string[] = [];
  const disk = world.disk;
  const { parent_run_id: runId, spawn_call_id: callId } = child.metadata;
  if (typeof runId !== "string" || typeof callId !== "string") return out;
  if (child.id !== derivedId("agent", runId, callId))
    out.push(`child ${child.id} does not have the id its spawn call derives`);
  const key = spawnKey(runId, callId);
  // A child has one task, whatever key a parent (or one it was handed over to) gave it.
  const tasks = (await disk.listMessages(child.id, ALL)).filter(
    (m) => m.message_type === "user_message" && m.otid?.startsWith("spawn:"),
  );
  if (tasks.length > 1) out.push(`child ${child.id} got its task ${tasks.length} times`);
  const runs = await disk.listRuns({ projectId: child.project_id, agentId: child.id }, ALL);
  const taskRuns = runs.filter((r) => r.idempotency_key?.startsWith("spawn:"));
  if (taskRuns.length > 1) out.push(`child ${child.id} ran its task ${taskRuns.length} times`);
  if (taskRuns.some((r) => r.idempotency_key !== key))
    out.push(`child ${child.id} ran a task under another key than ${key}`);
  const run = await disk.findRunByKey(child.id, key);
  const parentState = parent ? await disk.loadSession(parent.id) : null;
  const waited =
    parentState?.phase === "awaiting_children" &&
    childTasks(parentState).some((c) => c.childId === child.id && c.key === key);
  const session = await disk.loadSession(child.id);
  const busy = run?.status === "running" || (session !== null && !SETTLED.has(session.phase));
  if (busy && !waited) {
    const what = run?.status === "running" ? "its task run still runs" : `it is ${session?.phase}`;
    out.push(`orphan: ${what} (${child.id}), yet its parent ${child.parent_id} does not wait`);
  } else if (run?.status === "running") out.push(`child ${child.id} never ended its task run`);
  else if (busy) out.push(`child ${child.id} is still ${session?.phase} after recovery`);
  if (!run && waited) out.push(`child ${child.id} never got its task from ${child.parent_id}`);
  return out;
}

/**
 * A parent still waiting once the world is quiet says what it waits for: a child gone, one
 * whose task never came, one that ended unheard, or one that reports to another agent.
 */
async function checkWaiting(world: SimWorld, agent: AgentRecord): Promise<string[]> {
  const state = await world.disk.loadSession(agent.id);
  if (state?.phase !== "awaiting_children") return [];
  const out: string[] = [];
  for (const task of childTasks(state)) {
    const child = await world.disk.getAgent(task.childId);
    const run = await world.disk.findRunByKey(task.childId, task.key);
    const waits = `${agent.id} still waits for ${task.childId}`;
    if (!child) out.push(`${waits}, which is gone`);
    else if (child.parent_id !== agent.id)
      out.push(`${waits}, whose parent is ${child.parent_id} (a handed-over run?)`);
    else if (!run) out.push(`${waits}, which never got its task`);
    else if (run.status !== "running") out.push(`${waits}, whose task run ${run.status} unheard`);
  }
  return out;
}
