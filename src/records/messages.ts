import { z } from "zod";

/** Why a turn stopped, in Letta's words. */
export const StopReason = z.enum([
  "end_turn",
  "error",
  "llm_api_error",
  "invalid_llm_response",
  "invalid_tool_call",
  "max_steps",
  "max_tokens_exceeded",
  "no_tool_call",
  "tool_rule",
  "cancelled",
  "requires_approval",
  "context_window_overflow_in_system_prompt",
]);
export type StopReason = z.infer<typeof StopReason>;

/** How a tool call ended: Letta's `status` of a tool return. */
export const ToolStatus = z.enum(["success", "error"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

export const ToolCall = z.object({
  name: z.string(),
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: z.string(),
  tool_call_id: z.string(),
});
export type ToolCall = z.infer<typeof ToolCall>;

const base = {
  id: z.string(),
  /** ISO time the message was made. */
  date: z.string(),
  run_id: z.string().nullable(),
  step_id: z.string().nullable(),
  otid: z.string().nullable(),
  /** Its place in its run (1, 2, …): a client re-attaching to a run's stream resumes after it. */
  seq_id: z.int().min(1).optional(),
  /** The conversation it belongs to (decision 026); absent or null: the agent's default one. */
  conversation_id: z.string().nullable().optional(),
};

/** A human's answer to a call waiting for approval: run it, or not (and why). */
export const ApprovalAnswer = z.object({
  tool_call_id: z.string(),
  approve: z.boolean(),
  reason: z.string().nullable(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

/** A client's result of a call it ran itself (Letta's approval entry with `type: "tool"`). */
export const ClientToolReturn = z.object({
  type: z.literal("tool"),
  tool_call_id: z.string(),
  tool_return: z.string(),
  status: ToolStatus,
});
export type ClientToolReturn = z.infer<typeof ClientToolReturn>;

/** What answers a waiting call: an approval decision, or a client tool's result. */
export const ApprovalDecision = z.union([ClientToolReturn, ApprovalAnswer]);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * Every message type of Letta's, the one list filters and documents use. Holdfast stores all
 * but `hidden_reasoning_message` (Letta's stand-in for a provider's hidden reasoning).
 */
export const MessageType = z.enum([
  "system_message",
  "user_message",
  "assistant_message",
  "reasoning_message",
  "hidden_reasoning_message",
  "tool_call_message",
  "tool_return_message",
  "approval_request_message",
  "approval_response_message",
]);
export type MessageType = z.infer<typeof MessageType>;

const type = MessageType.enum;
const text = z.string();

export const SystemMessage = z.object({
  ...base,
  message_type: z.literal(type.system_message),
  content: text,
});
export const UserMessage = z.object({
  ...base,
  message_type: z.literal(type.user_message),
  content: text,
});
export const AssistantMessage = z.object({
  ...base,
  message_type: z.literal(type.assistant_message),
  content: text,
});
export const ReasoningMessage = z.object({
  ...base,
  message_type: z.literal(type.reasoning_message),
  reasoning: z.string(),
  /** The provider's signature of the reasoning (Anthropic thinking), as Letta keeps it. */
  signature: z.string().nullable().optional(),
});
export const ToolCallMessage = z.object({
  ...base,
  message_type: z.literal(type.tool_call_message),
  tool_call: ToolCall,
});
export const ToolReturnMessage = z.object({
  ...base,
  message_type: z.literal(type.tool_return_message),
  name: z.string(),
  tool_call_id: z.string(),
  tool_return: z.string(),
  status: ToolStatus,
});
export const ApprovalRequestMessage = z.object({
  ...base,
  message_type: z.literal(type.approval_request_message),
  tool_call: ToolCall,
});
export const ApprovalResponseMessage = z.object({
  ...base,
  message_type: z.literal(type.approval_response_message),
  approvals: z.array(ApprovalDecision),
});

/** One message of an agent's history, with Letta's message types and field names. */
export const AgentMessage = z.discriminatedUnion("message_type", [
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ReasoningMessage,
  ToolCallMessage,
  ToolReturnMessage,
  ApprovalRequestMessage,
  ApprovalResponseMessage,
]);
export type AgentMessage = z.infer<typeof AgentMessage>;
/** The message types Holdfast stores. */
export type StoredMessageType = AgentMessage["message_type"];
export type MessageOf<T extends StoredMessageType> = Extract<AgentMessage, { message_type: T }>;
