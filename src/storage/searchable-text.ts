import type { MessageHit } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";

/**
 * Tools whose returns say nothing a search should find: `send_message` answers "sent", and
 * `conversation_search` returns earlier hits, which would nest ever deeper (Letta skips both).
 */
const UNSEARCHED_RETURNS: ReadonlySet<string> = new Set(["send_message", "conversation_search"]);

/**
 * The text of a message that conversation search matches and shows, and its role: what the
 * user and the agent said, as they said it. A reply sent through `send_message` is its
 * `message` argument, not the call's JSON.
 */
export function searchableText(
  message: AgentMessage,
): { role: MessageHit["role"]; text: string } | null {
  switch (message.message_type) {
    case "user_message":
      return { role: "user", text: message.content };
    case "assistant_message":
      return { role: "assistant", text: message.content };
    case "tool_call_message": {
      if (message.tool_call.name !== "send_message") return null;
      const said = sentMessage(message.tool_call.arguments);
      return said === null ? null : { role: "assistant", text: said };
    }
    case "tool_return_message":
      return UNSEARCHED_RETURNS.has(message.name)
        ? null
        : { role: "tool", text: message.tool_return };
    default:
      return null;
  }
}

/** The `message` argument of a send_message call, or null when the arguments hold none. */
export function sentMessage(args: string): string | null {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed !== "object" || parsed === null) return null;
    const message = Reflect.get(parsed, "message");
    return typeof message === "string" ? message : null;
  } catch {
    return null;
  }
}
