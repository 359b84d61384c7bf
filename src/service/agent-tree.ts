import type { z } from "zod";
import type { AgentRecord } from "../records/agent-record.js";
import type { AgentChildNode } from "../records/agent-state.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";

/** A sub-agent as `GET /v1/agents/{id}/children` shows it, with its own children below. */
export type ChildNode = Omit<z.infer<typeof AgentChildNode>, "children"> & {
  children: ChildNode[];
};

/** The deepest tree shown: deeper than any spawn depth a type may set (16). */
const MAX_DEPTH = 17;

/** The sub-agents an agent spawned, each with its status and its own sub-agents. */
export async function childTree(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
): Promise<ChildNode[]> {
  await requireAgent(ctx, projectId, agentId);
  return childrenOf(ctx, agentId, MAX_DEPTH);
}

async function childrenOf(
  ctx: ServiceContext,
  agentId: string,
  depth: number,
): Promise<ChildNode[]> {
  if (depth === 0) return [];
  const records = await ctx.store.listChildren(agentId);
  return Promise.all(records.map((record) => nodeOf(ctx, record, depth)));
}

async function nodeOf(ctx: ServiceContext, record: AgentRecord, depth: number): Promise<ChildNode> {
  const { parent_run_id: runId, spawn_call_id: callId } = record.metadata;
  const key =
    typeof runId === "string" && typeof callId === "string" ? `spawn:${runId}:${callId}` : null;
  const [session, run, children] = await Promise.all([
    ctx.store.loadSession(record.id),
    key ? ctx.store.findRunByKey(record.id, key) : null,
    childrenOf(ctx, record.id, depth - 1),
  ]);
  return {
    id: record.id,
    name: record.name,
    agent_type: record.agent_type,
    status: session?.phase ?? "idle",
    task_run: run ? { id: run.id, status: run.status, stop_reason: run.stop_reason } : null,
    created_at: new Date(record.created_at_ms).toISOString(),
    children,
  };
}
