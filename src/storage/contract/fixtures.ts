import type { AgentRecord, RunRecord } from "../../records/agent-record.js";
import type { CoreBlock, Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { newSessionState, type SessionState } from "../../records/session-state.js";
import type { PageQuery, Store } from "../store.js";
import type { StepCommit } from "../turn-store.js";

/** Records for the Store contract suite (`store.contract.ts`), and what its cases share. */

export interface StoreContractOptions {
  /** Closes `old` and opens the same data again; persistence is tested only when given. */
  reopen?: (old: Store) => Promise<Store>;
}

/** What the contract's cases share: the store under test (new for each test) and helpers. */
export interface ContractContext {
  store: Store;
  /** A new id with this prefix, unique within the suite. */
  fresh(prefix: string): string;
  /** Creates an agent with `persona` and `human` blocks; returns its id. */
  createAgent(id?: string, projectId?: string): Promise<string>;
  /** Commits one user message per text, one commit each; returns their ids. */
  say(agentId: string, ...texts: string[]): Promise<string[]>;
}

export const DATE = "2025-03-01T12:00:00.000Z";

export function agentRecord(id: string, projectId = "project-1"): AgentRecord {
  return {
    id,
    project_id: projectId,
    name: `name of ${id}`,
    agent_type: "memgpt",
    overrides: { model: "sim/echo" },
    tool_rules: [{ type: "exit_loop", tool_name: "send_message" }],
    tags: ["contract"],
    metadata: { nested: { list: [1, 2, 3] } },
    description: null,
    parent_id: null,
    created_at_ms: 1_000,
    updated_at_ms: 1_000,
  };
}

export function block(label: string, value = `${label} value`): CoreBlock {
  return {
    id: `block-${label}`,
    label,
    description: `the ${label}`,
    value,
    limit: 5_000,
    read_only: false,
  };
}

export function userMessage(id: string, content: string, date = DATE): AgentMessage {
  const base = { id, date, run_id: null, step_id: null, otid: null };
  return { ...base, message_type: "user_message", content };
}

export function assistantMessage(id: string, content: string): AgentMessage {
  const base = { id, date: DATE, run_id: "run-1", step_id: "step-1", otid: null };
  return { ...base, message_type: "assistant_message", content };
}

export function reasoningMessage(id: string, reasoning: string): AgentMessage {
  const base = { id, date: DATE, run_id: "run-1", step_id: "step-1", otid: null };
  return { ...base, message_type: "reasoning_message", reasoning };
}

export function toolReturn(id: string, text: string): AgentMessage {
  const base = { id, date: DATE, run_id: "run-1", step_id: "step-1", otid: null };
  return {
    ...base,
    message_type: "tool_return_message",
    name: "archival_memory_search",
    tool_call_id: "call-1",
    tool_return: text,
    status: "success",
  };
}

export function passage(id: string, text: string, tags: string[] = []): Passage {
  return { id, text, tags, created_at_ms: 2_000 };
}

export function session(phase: SessionState["phase"] = "idle"): SessionState {
  return { ...newSessionState("session-1"), phase };
}

/** A session with something in every field, to check it round-trips exactly. */
export function busySession(): SessionState {
  return {
    ...session("awaiting_approval"),
    run_id: "run-1",
    step_id: "step-2",
    iteration: 2,
    tool_calls: 3,
    counts: { send_message: 1, run_shell: 2 },
    last_tool: "run_shell",
    pending: [
      {
        tool_call: { name: "run_shell", arguments: '{"cmd":"ls"}', tool_call_id: "call-9" },
        status: "awaiting_approval",
        child_agent_id: null,
        request_heartbeat: true,
        denial_reason: null,
        approval_expires_at_ms: 9_000,
        outcome: null,
      },
    ],
    offered: ["run_shell", "send_message"],
    after_tools: "continue",
    pause_until_ms: null,
    approved_tools: ["read_file"],
    usage: { prompt_tokens: 120, completion_tokens: 40, step_count: 2 },
  };
}

export function run(id: string, agentId: string, key: string | null = null): RunRecord {
  return {
    id,
    agent_id: agentId,
    status: "running",
    stop_reason: null,
    idempotency_key: key,
    created_at_ms: 3_000,
    completed_at_ms: null,
    usage: null,
    verification: null,
    models: [],
  };
}

export function step(
  agentId: string,
  changes: Partial<Omit<StepCommit, "agentId">> = {},
): StepCommit {
  return {
    agentId,
    state: session("running"),
    messages: [],
    memory: { blocks: [], passages: [] },
    ...changes,
  };
}

export const asc = (limit = 100, cursors: Partial<PageQuery> = {}): PageQuery => ({
  order: "asc",
  limit,
  ...cursors,
});
export const desc = (limit = 100, cursors: Partial<PageQuery> = {}): PageQuery => ({
  order: "desc",
  limit,
  ...cursors,
});
export const ids = (rows: readonly { id: string }[]): string[] => rows.map((row) => row.id);
