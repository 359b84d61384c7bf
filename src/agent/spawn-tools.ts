import { listAgentTypesTool, spawnAgentTool } from "../tools/builtin/workspace-tools.js";
import { failure, implementTool, success, type ToolImplementation } from "../tools/tool.js";
import type { AgentTypeRegistry } from "../types/registry.js";

/**
 * list_agent_types and spawn_agent for orchestrators. A spawn_agent call never runs here: the
 * loop turns it into a `spawn_child` step, and the engine runs the child as a real agent. The
 * implementation only makes the tool known, so calls are checked like any other.
 */
export function spawnTools(registry: AgentTypeRegistry): ToolImplementation[] {
  return [
    implementTool(listAgentTypesTool, { idempotent: true }, async () =>
      success(
        registry
          .list()
          .map((type) => `${type.name}: ${type.description}`)
          .join("\n"),
      ),
    ),
    implementTool(spawnAgentTool, { idempotent: false }, async () =>
      failure("spawn_agent runs through the engine, never as a plain tool"),
    ),
  ];
}

/** The last thing an agent said to its caller in `messages` (one run's). */
export function finalAnswer(
  messages: readonly {
    message_type: string;
    content?: string;
    tool_call?: { name: string; arguments: string };
  }[],
): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.message_type === "assistant_message") return message.content ?? "";
    if (
      message?.message_type === "tool_call_message" &&
      message.tool_call?.name === "send_message"
    ) {
      try {
        return String(
          (JSON.parse(message.tool_call.arguments) as { message?: unknown }).message ?? "",
        );
      } catch {
        return "";
      }
    }
  }
  return "(no answer)";
}
