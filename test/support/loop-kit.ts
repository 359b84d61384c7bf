import type { LoopEvent } from "../../src/agent/events.js";
import type { LoopDeps, TurnAgent } from "../../src/agent/run-turn.js";
import { spawnTools } from "../../src/agent/spawn-tools.js";
import { createTurnAgent } from "../../src/agent/turn-agent.js";
import { builtinConfig, checkConfig } from "../../src/config/config-file.js";
import type { Clock } from "../../src/core/clock.js";
import { type IdSource, sequentialIds } from "../../src/core/ids.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { ModelAdapter } from "../../src/llm/model.js";
import type { AgentMessage } from "../../src/records/messages.js";
import { newSessionState } from "../../src/records/session-state.js";
import type { ToolRule } from "../../src/records/tool-rule.js";
import { newAgent } from "../../src/runtime/new-agent.js";
import { createInMemoryStore } from "../../src/storage/memory/in-memory-store.js";
import type { Store } from "../../src/storage/store.js";
import type { StepCommit, TurnStore } from "../../src/storage/turn-store.js";
import { builtinToolImplementations } from "../../src/tools/registry.js";
import type { Sandbox } from "../../src/tools/sandbox/sandbox.js";
import type { ToolImplementation } from "../../src/tools/tool.js";
import type { AgentOverrides } from "../../src/types/overrides.js";

/**
 * One agent of a built-in type on the in-memory store, a manual clock and sequential ids
 * (prefixed with the agent id when one is given, so that agents sharing a store never collide).
 */
export async function loopKit(options: {
  type: string;
  model: ModelAdapter;
  overrides?: AgentOverrides;
  rules?: ToolRule[];
  tools?: ToolImplementation[];
  workspaceRoot?: string;
  /** How the shell runs; unconfined (`none`) unless a test asks for bubblewrap. */
  sandbox?: Sandbox;
  /** A config document whose types join the built-ins. */
  config?: unknown;
  /** Share a store between kits to run several agents side by side. */
  store?: Store;
  agentId?: string;
  /** Defaults to a manual clock, which moves only when the test says. */
  clock?: Clock;
}) {
  const checked =
    options.config === undefined
      ? { ok: true as const, config: builtinConfig() }
      : checkConfig(options.config);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const { registry, catalogue } = checked.config;
  const type = registry.get(options.type);
  if (!type) throw new Error(`no type ${options.type}`);
  const store = options.store ?? createInMemoryStore();
  const agentId = options.agentId ?? "agent-1";
  const sequence = sequentialIds();
  const ids: IdSource = options.agentId
    ? { next: (prefix) => sequence.next(`${prefix}-${options.agentId}`) }
    : sequence;
  const agent: TurnAgent = createTurnAgent({
    id: agentId,
    type,
    catalogue,
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
  });
  const created = newAgent({ name: agentId, type }, ids, 0);
  await store.createAgent({ agent: { ...created.agent, id: agentId }, blocks: created.blocks });
  const tools = builtinToolImplementations(options.sandbox ?? { mode: "none" });
  for (const tool of options.tools ?? []) tools.set(tool.declaration.name, tool);
  for (const tool of spawnTools(registry)) tools.set(tool.declaration.name, tool);
  const events: LoopEvent[] = [];
  const manual = new ManualClock();
  const clock = options.clock ?? manual;
  const deps: LoopDeps = {
    model: options.model,
    tools,
    store,
    clock,
    ids,
    workspace: {
      root: options.workspaceRoot ?? null,
      readOnly: type.isolation.read_only,
      network: type.isolation.network,
    },
    onEvent: (event) => events.push(event),
  };
  return {
    agent,
    store,
    deps,
    clock: manual,
    events,
    /** The agent's session as committed, or a new one. */
    session: async () => (await store.loadSession(agentId)) ?? newSessionState("session-1"),
    /** Every message of an agent on the store (this kit's by default), oldest first. */
    messages: (id = agentId) => store.listMessages(id, { limit: 1_000_000, order: "asc" }),
  };
}

/** A transcript line per message: what a reader checks a conversation by. */
export function transcript(messages: readonly AgentMessage[]): string[] {
  return messages.map(transcriptLine);
}

function transcriptLine(m: AgentMessage): string {
  switch (m.message_type) {
    case "user_message":
    case "assistant_message":
    case "system_message":
      return `${m.message_type}: ${m.content}`;
    case "reasoning_message":
      return `reasoning_message: ${m.reasoning}`;
    case "tool_call_message":
    case "approval_request_message":
      return `${m.message_type}: ${m.tool_call.name} ${m.tool_call.arguments}`;
    case "tool_return_message":
      return `tool_return_message: ${m.name} ${m.status}: ${m.tool_return}`;
    case "approval_response_message":
      return `approval_response_message: ${m.approvals.map((a) => ("type" in a ? `return:${a.status}` : a.approve ? "approve" : "deny")).join(",")}`;
  }
}

/**
 * The store as a turn sees it, but whose commits throw `error` once `dies` says so, and every
 * commit after: the process died there, and nothing more reached the disk.
 */
export function dyingStore(store: Store, dies: () => boolean, error = "crash"): TurnStore {
  let dead = false;
  return {
    loadBlocks: (id) => store.loadBlocks(id),
    getRun: (id) => store.getRun(id),
    recentMessages: (id, limit) => store.recentMessages(id, limit),
    searchMessages: (id, query, options) => store.searchMessages(id, query, options),
    searchPassages: (id, query, options) => store.searchPassages(id, query, options),
    commit: async (step: StepCommit) => {
      dead ||= dies();
      if (dead) throw new Error(error);
      await store.commit(step);
    },
  };
}
