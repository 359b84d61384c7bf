import type { LoopEvent } from "../../src/agent/events.js";
import type { LoopDeps, TurnAgent } from "../../src/agent/run-turn.js";
import { spawnTools } from "../../src/agent/spawn-tools.js";
import { createTurnAgent } from "../../src/agent/turn-agent.js";
import { builtinConfig, checkConfig } from "../../src/config/config-file.js";
import type { Clock } from "../../src/core/clock.js";
import { sequentialIds } from "../../src/core/ids.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { ModelAdapter } from "../../src/llm/model.js";
import type { AgentMessage } from "../../src/records/messages.js";
import { newSessionState } from "../../src/records/session-state.js";
import type { ToolRule } from "../../src/records/tool-rule.js";
import { InMemoryTurnStore } from "../../src/storage/in-memory-turn-store.js";
import { builtinToolImplementations } from "../../src/tools/registry.js";
import type { ToolImplementation } from "../../src/tools/tool.js";
import type { AgentOverrides } from "../../src/types/overrides.js";

/** One agent of a built-in type on an in-memory store, a manual clock and sequential ids. */
export function loopKit(options: {
  type: string;
  model: ModelAdapter;
  overrides?: AgentOverrides;
  rules?: ToolRule[];
  tools?: ToolImplementation[];
  workspaceRoot?: string;
  /** A config document whose types join the built-ins. */
  config?: unknown;
  /** Share a store between kits to run several agents side by side. */
  store?: InMemoryTurnStore;
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
  const store = options.store ?? new InMemoryTurnStore();
  const agent: TurnAgent = createTurnAgent({
    id: options.agentId ?? "agent-1",
    type,
    catalogue,
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
  });
  store.putBlocks(
    agent.id,
    type.memory.blocks.map((block, i) => ({
      id: `block-${i}`,
      label: block.label,
      description: block.description,
      value: block.value,
      limit: block.limit,
      read_only: block.read_only,
    })),
  );
  const tools = builtinToolImplementations();
  for (const tool of options.tools ?? []) tools.set(tool.declaration.name, tool);
  const spawnOptions = {
    registry,
    catalogue,
    depth: 0,
    maxDepth: agent.config.capabilities.limits.max_spawn_depth,
  };
  for (const tool of spawnTools(spawnOptions, () => deps)) tools.set(tool.declaration.name, tool);
  const events: LoopEvent[] = [];
  const manual = new ManualClock();
  const clock = options.clock ?? manual;
  const deps: LoopDeps = {
    model: options.model,
    tools,
    store,
    clock,
    ids: sequentialIds(),
    workspace: { root: options.workspaceRoot ?? null, readOnly: type.isolation.read_only },
    onEvent: (event) => events.push(event),
  };
  return {
    agent,
    store,
    deps,
    clock: manual,
    events,
    session: () => store.session(agent.id) ?? newSessionState("session-1"),
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
      return `approval_response_message: ${m.approvals.map((a) => `${a.approve ? "approve" : "deny"}`).join(",")}`;
  }
}
