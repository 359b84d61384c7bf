import type { ModelMessage } from "../llm/model.js";
import type { AgentMessage } from "../records/messages.js";

/**
 * Turns stored messages into the conversation a model sees. The text and tool calls of one
 * step become one assistant message, with its signed reasoning if any; other reasoning and
 * approval bookkeeping are left out; system
 * notices reach the model as user messages, since providers allow only one system prompt.
 */
export function toModelMessages(history: readonly AgentMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let assistant: Extract<ModelMessage, { role: "assistant" }> | null = null;
  let assistantStep: string | null = null;
  const flush = () => {
    if (assistant) out.push(assistant);
    assistant = null;
    assistantStep = null;
  };
  const assistantFor = (stepId: string | null) => {
    if (!assistant || assistantStep !== stepId) {
      flush();
      assistant = { role: "assistant", content: "", toolCalls: [] };
      assistantStep = stepId;
    }
    return assistant;
  };
  for (const message of history) {
    switch (message.message_type) {
      case "user_message":
        flush();
        out.push({ role: "user", content: message.content });
        break;
      case "system_message":
        flush();
        out.push({ role: "user", content: `[system] ${message.content}` });
        break;
      case "assistant_message": {
        const turn = assistantFor(message.step_id);
        turn.content = turn.content ? `${turn.content}\n${message.content}` : message.content;
        break;
      }
      case "tool_call_message": {
        const { tool_call: call } = message;
        assistantFor(message.step_id).toolCalls.push({
          id: call.tool_call_id,
          name: call.name,
          arguments: call.arguments,
        });
        break;
      }
      case "tool_return_message":
        flush();
        out.push({
          role: "tool",
          toolCallId: message.tool_call_id,
          toolName: message.name,
          content: message.tool_return,
        });
        break;
      case "reasoning_message":
        // Signed reasoning (Anthropic thinking) goes back with its step, as the provider asks.
        if (message.signature)
          assistantFor(message.step_id).reasoning = {
            text: message.reasoning,
            signature: message.signature,
          };
        break;
      case "approval_request_message":
      case "approval_response_message":
        break;
    }
  }
  flush();
  return out;
}
