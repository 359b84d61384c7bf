import { newSessionState } from "../records/session-state.js";
import { listAgentTypesTool, spawnAgentTool } from "../tools/builtin/workspace-tools.js";
import type { ToolCatalogue } from "../tools/catalogue.js";
import { failure, implementTool, success, type ToolImplementation } from "../tools/tool.js";
import type { AgentType } from "../types/agent-type.js";
import type { AgentTypeRegistry } from "../types/registry.js";
import { type LoopDeps, sendUserMessage } from "./run-turn.js";
import { createTurnAgent } from "./turn-agent.js";

/** What spawning needs: the types to choose from, and how deep this agent already is. */
export interface SpawnOptions {
  registry: AgentTypeRegistry;
  catalogue: ToolCatalogue;
  /** 0 for an agent the user talks to; a sub-agent is one deeper than its parent. */
  depth: number;
  /** The deepest a sub-agent of this agent may be, from its capabilities. */
  maxDepth: number;
  /**
   * Makes the sub-agent a real agent in the store (in its parent's project) and returns its
   * id; stores that hold only agents they were told about need it. Without it, a fresh id.
   */
  createChild?: (type: AgentType) => Promise<string>;
}

/**
 * list_agent_types and spawn_agent for orchestrators. A sub-agent runs one turn of its own type
 * on the parent's model and store, under its own id, and its answer is the tool's result.
 */
export function spawnTools(
  options: SpawnOptions,
  parentDeps: () => LoopDeps,
): ToolImplementation[] {
  return [
    implementTool(listAgentTypesTool, { idempotent: true }, async () =>
      success(
        options.registry
          .list()
          .map((type) => `${type.name}: ${type.description}`)
          .join("\n"),
      ),
    ),
    implementTool(spawnAgentTool, { idempotent: false, timeoutMs: 600_000 }, async (args) => {
      if (options.depth + 1 > options.maxDepth) {
        return failure(`cannot spawn: the spawn depth limit of ${options.maxDepth} is reached`);
      }
      const type = options.registry.get(args.agent_type);
      if (!type) {
        return failure(
          `no agent type '${args.agent_type}'; known: ${options.registry.names().join(", ")}`,
        );
      }
      const deps = parentDeps();
      const id = options.createChild ? await options.createChild(type) : deps.ids.next("agent");
      const child = createTurnAgent({ id, type, catalogue: options.catalogue });
      const childDepth = { ...options, depth: options.depth + 1 };
      const tools = new Map(deps.tools);
      for (const tool of spawnTools(childDepth, () => childDeps))
        tools.set(tool.declaration.name, tool);
      const { onEvent: _parentEvents, history: _parentHistory, ...rest } = deps;
      const childDeps: LoopDeps = { ...rest, tools };
      const turn = await sendUserMessage(
        child,
        newSessionState(deps.ids.next("session")),
        { content: args.prompt },
        childDeps,
      );
      const answer = finalAnswer(turn.messages);
      const head = `${args.agent_type} (${child.id}) stopped with ${turn.stopReason}`;
      return turn.stopReason === "end_turn"
        ? success(`${head}:\n${answer}`)
        : failure(`${head}:\n${answer}`);
    }),
  ];
}

/** The last thing the sub-agent said to its caller. */
function finalAnswer(messages: Awaited<ReturnType<typeof sendUserMessage>>["messages"]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.message_type === "assistant_message") return message.content;
    if (
      message?.message_type === "tool_call_message" &&
      message.tool_call.name === "send_message"
    ) {
      return String(
        (JSON.parse(message.tool_call.arguments) as { message?: unknown }).message ?? "",
      );
    }
  }
  return "(no answer)";
}
