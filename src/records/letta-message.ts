import { z } from "zod";
import { RunVerification } from "./agent-record.js";
import {
  ApprovalAnswer,
  ApprovalRequestMessage,
  ApprovalResponseMessage,
  AssistantMessage,
  ClientToolReturn,
  ReasoningMessage,
  StopReason,
  SystemMessage,
  ToolCall,
  ToolCallMessage,
  ToolReturnMessage,
  ToolStatus,
  UserMessage,
} from "./messages.js";

/**
 * A message as the API shows it: the stored message (messages.ts) with Letta's derived fields
 * beside the older singular ones Letta still sends (letta/schemas/letta_message.py), and an
 * `otid` always set (the client's, else one derived from the message id).
 */
const shown = { otid: z.string() };

/** A tool's result as Letta's newer `tool_returns` list carries it. */
const ToolReturnEntry = z.object({
  type: z.literal("tool"),
  tool_call_id: z.string(),
  status: ToolStatus,
  tool_return: z.string(),
  stdout: z.null(),
  stderr: z.null(),
});

/** Every message type of Letta's as the API shows it, discriminated by `message_type`. */
export const LettaMessage = z.discriminatedUnion("message_type", [
  SystemMessage.extend(shown),
  UserMessage.extend(shown),
  AssistantMessage.extend(shown),
  ReasoningMessage.extend(shown),
  ToolCallMessage.extend({ ...shown, tool_calls: z.array(ToolCall) }),
  ToolReturnMessage.extend({
    ...shown,
    stdout: z.null(),
    stderr: z.null(),
    tool_returns: z.array(ToolReturnEntry),
  }),
  ApprovalRequestMessage.extend({
    ...shown,
    tool_calls: z.array(ToolCall),
    /** The sub-agent that asks, on an approval surfaced from below the agent. */
    agent_id: z.string().optional(),
  }),
  ApprovalResponseMessage.extend({
    ...shown,
    approvals: z.array(
      z.union([ClientToolReturn, ApprovalAnswer.extend({ type: z.literal("approval") })]),
    ),
    approve: z.boolean().nullable(),
    approval_request_id: z.string().nullable(),
    reason: z.string().nullable(),
  }),
]);
export type LettaMessage = z.infer<typeof LettaMessage>;

/** Letta's `usage_statistics` of a run. */
export const LettaUsage = z.object({
  message_type: z.literal("usage_statistics"),
  completion_tokens: z.int(),
  prompt_tokens: z.int(),
  total_tokens: z.int(),
  step_count: z.int(),
});
export type LettaUsage = z.infer<typeof LettaUsage>;

/** Letta's `LettaResponse`: what the agent produced (not the input), why it stopped, usage. */
export const LettaResponse = z.object({
  messages: z.array(LettaMessage),
  stop_reason: z.object({ message_type: z.literal("stop_reason"), stop_reason: StopReason }),
  usage: LettaUsage,
  /** The verifier gate's outcome, for a type with `verify`. */
  verification: RunVerification.optional(),
});
export type LettaResponse = z.infer<typeof LettaResponse>;
