import { type Message, textOf } from "../types.js";

/** One message of a chat or a run, by its kind: reasoning, a tool call, its return, a reply. */
export function MessageView({ message }: { message: Message }) {
  const kind = message.message_type;
  switch (kind) {
    case "user_message":
      return <Bubble kind="user" label="you" text={textOf(message.content)} />;
    case "assistant_message":
      return <Bubble kind="assistant" label="agent" text={textOf(message.content)} />;
    case "reasoning_message":
      return <Bubble kind="reasoning" label="reasoning" text={message.reasoning ?? ""} />;
    case "hidden_reasoning_message":
      return <Bubble kind="reasoning" label="reasoning" text="(hidden by the provider)" />;
    case "system_message":
      return <Bubble kind="system" label="system" text={textOf(message.content)} />;
    case "tool_call_message":
    case "approval_request_message":
      return (
        <div
          class={`msg tool ${kind === "approval_request_message" ? "ask" : ""}`}
          data-kind={kind}
        >
          <span class="label">
            {kind === "approval_request_message" ? "asks approval" : "tool call"}
          </span>
          {(message.tool_calls ?? (message.tool_call ? [message.tool_call] : [])).map((call) => (
            <code key={call.tool_call_id}>
              {call.name}({call.arguments})
            </code>
          ))}
        </div>
      );
    case "tool_return_message":
      return (
        <div
          class={`msg tool-return ${message.status === "error" ? "failed" : ""}`}
          data-kind={kind}
        >
          <span class="label">
            {message.name ?? "tool"} → {message.status}
          </span>
          <pre>{message.tool_return}</pre>
        </div>
      );
    case "approval_response_message":
      return (
        <Bubble
          kind="system"
          label="approval"
          text={`${message.approve ? "approved" : "denied"}${message.reason ? `: ${message.reason}` : ""}`}
        />
      );
    default:
      return <Bubble kind="system" label={kind} text={JSON.stringify(message)} />;
  }
}

function Bubble({ kind, label, text }: { kind: string; label: string; text: string }) {
  return (
    <div class={`msg ${kind}`} data-kind={kind}>
      <span class="label">{label}</span>
      <div class="text">{text}</div>
    </div>
  );
}
