import type { FieldError } from "../core/errors.js";
import type { IdSource } from "../core/ids.js";
import type { AgentFileMessage } from "../records/agent-file.js";
import type { AgentMessage, ApprovalDecision } from "../records/messages.js";

/**
 * Messages between Holdfast's history (one row per Letta message type) and Letta's agent file
 * (OpenAI-style roles, `content` parts and `tool_calls`). Each Holdfast message becomes one
 * file message, so a Holdfast → file → Holdfast round trip gives the same history back.
 */

const text = (value: string) => [{ type: "text", text: value }];

/** One history message as Letta's `MessageSchema`, with its file id and the file's agent id. */
export function toFileMessage(message: AgentMessage, id: string, agentId: string) {
  const base = {
    type: "message",
    id,
    agent_id: agentId,
    name: null as string | null,
    otid: message.otid,
    model: null,
    created_at: message.date,
    tool_calls: null as unknown[] | null,
    tool_call_id: null as string | null,
    tool_returns: [] as unknown[],
    approvals: null as unknown[] | null,
  };
  const call = (c: { tool_call_id: string; name: string; arguments: string }) => ({
    id: c.tool_call_id,
    type: "function",
    function: { name: c.name, arguments: c.arguments },
  });
  switch (message.message_type) {
    case "system_message":
      return { ...base, role: "system", content: text(message.content) };
    case "user_message":
      return { ...base, role: "user", content: text(message.content) };
    case "assistant_message":
      return { ...base, role: "assistant", content: text(message.content) };
    case "reasoning_message":
      return {
        ...base,
        role: "assistant",
        content: [
          {
            type: "reasoning",
            is_native: true,
            reasoning: message.reasoning,
            signature: message.signature ?? null,
          },
        ],
      };
    case "tool_call_message":
      return { ...base, role: "assistant", content: [], tool_calls: [call(message.tool_call)] };
    case "tool_return_message":
      return {
        ...base,
        role: "tool",
        name: message.name,
        content: text(message.tool_return),
        tool_call_id: message.tool_call_id,
        tool_returns: [
          {
            tool_call_id: message.tool_call_id,
            status: message.status,
            func_response: message.tool_return,
          },
        ],
      };
    case "approval_request_message":
      return { ...base, role: "approval", content: [], tool_calls: [call(message.tool_call)] };
    case "approval_response_message":
      return {
        ...base,
        role: "approval",
        content: [],
        approvals: message.approvals.map((a) =>
          "type" in a
            ? { ...a, func_response: a.tool_return }
            : {
                type: "approval",
                tool_call_id: a.tool_call_id,
                approve: a.approve,
                reason: a.reason,
              },
        ),
      };
  }
}

/** The text of a message's content, or the path of a part Holdfast cannot keep. */
function contentOf(
  message: AgentFileMessage,
  path: string,
  errors: FieldError[],
): { text: string; reasoning: { reasoning: string; signature: string | null }[] } {
  const content = message.content ?? [];
  if (typeof content === "string") return { text: content, reasoning: [] };
  const texts: string[] = [];
  const reasoning: { reasoning: string; signature: string | null }[] = [];
  content.forEach((part, i) => {
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "reasoning" && typeof part.reasoning === "string")
      reasoning.push({
        reasoning: part.reasoning,
        signature: typeof part.signature === "string" ? part.signature : null,
      });
    else
      errors.push({
        path: `${path}.content.${i}.type`,
        message: `content of type '${part.type}' cannot be imported; Holdfast keeps text and reasoning (strip_messages imports the agent without its history)`,
      });
  });
  return { text: texts.join("\n"), reasoning };
}

/**
 * The history messages of one file message, with new ids. Problems are added to `errors` at
 * their path (`agents.0.messages.4.content.0.type`); nothing is thrown, so that every problem
 * of a file is reported at once.
 */
export function fromFileMessage(
  message: AgentFileMessage,
  path: string,
  ids: IdSource,
  errors: FieldError[],
): AgentMessage[] {
  const at = message.created_at ? Date.parse(message.created_at) : 0;
  if (Number.isNaN(at))
    errors.push({ path: `${path}.created_at`, message: "not an ISO date and time" });
  const base = {
    date: new Date(Number.isNaN(at) ? 0 : at).toISOString(),
    run_id: null,
    step_id: null,
    otid: message.otid ?? null,
  };
  const id = () => ids.next("message");
  const { text, reasoning } = contentOf(message, path, errors);
  const calls = message.tool_calls ?? [];
  const toolCall = (c: (typeof calls)[number]) => ({
    name: c.function.name,
    arguments: c.function.arguments,
    tool_call_id: c.id,
  });
  switch (message.role) {
    case "system":
      return [{ ...base, id: id(), message_type: "system_message", content: text }];
    case "user":
      return [{ ...base, id: id(), message_type: "user_message", content: text }];
    case "assistant": {
      const out: AgentMessage[] = reasoning.map((r) => ({
        ...base,
        id: id(),
        message_type: "reasoning_message" as const,
        reasoning: r.reasoning,
        signature: r.signature,
      }));
      // Text beside tool calls is Letta's inner monologue: reasoning, not a reply.
      if (text !== "" && calls.length > 0)
        out.push({ ...base, id: id(), message_type: "reasoning_message", reasoning: text });
      else if (text !== "")
        out.push({ ...base, id: id(), message_type: "assistant_message", content: text });
      for (const c of calls)
        out.push({ ...base, id: id(), message_type: "tool_call_message", tool_call: toolCall(c) });
      return out;
    }
    case "tool":
    case "function": {
      const status = message.tool_returns?.[0]?.status === "error" ? "error" : "success";
      if (!message.tool_call_id) {
        errors.push({ path: `${path}.tool_call_id`, message: "a tool message needs tool_call_id" });
        return [];
      }
      return [
        {
          ...base,
          id: id(),
          message_type: "tool_return_message",
          name: message.name ?? "",
          tool_call_id: message.tool_call_id,
          tool_return: text,
          status,
        },
      ];
    }
    case "approval": {
      const requests = calls.map((c) => ({
        ...base,
        id: id(),
        message_type: "approval_request_message" as const,
        tool_call: toolCall(c),
      }));
      const answers = (message.approvals ?? []).map(
        (a): ApprovalDecision =>
          a.type === "tool"
            ? {
                type: "tool",
                tool_call_id: a.tool_call_id,
                tool_return: a.tool_return ?? a.func_response ?? "",
                status: a.status ?? "success",
              }
            : {
                tool_call_id: a.tool_call_id,
                approve: a.approve ?? false,
                reason: a.reason ?? null,
              },
      );
      const response: AgentMessage[] =
        answers.length > 0
          ? [{ ...base, id: id(), message_type: "approval_response_message", approvals: answers }]
          : [];
      return [...requests, ...response];
    }
  }
}
