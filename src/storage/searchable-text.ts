import type { MessageHit } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";

/** The text of a message that conversation search matches, and the role it shows. */
export function searchableText(
  message: AgentMessage,
): { role: MessageHit["role"]; text: string } | null {
  switch (message.message_type) {
    case "user_message":
      return { role: "user", text: message.content };
    case "assistant_message":
      return { role: "assistant", text: message.content };
    case "tool_call_message":
      return message.tool_call.name === "send_message"
        ? { role: "assistant", text: message.tool_call.arguments }
        : null;
    case "tool_return_message":
      return { role: "tool", text: message.tool_return };
    default:
      return null;
  }
}
