import { z } from "zod";
import { AgentSettings } from "../records/agent-state.js";
import { ClientTool } from "../records/client-tool.js";
import { CreateBlockBody } from "../records/core-block.js";
import { MessageType, ToolStatus } from "../records/messages.js";

/** A core block as Letta's clients create it. */
export const CreateBlock = CreateBlockBody;
export type CreateBlock = CreateBlockBody;

/**
 * `POST /v1/agents/`: Letta's fields that Holdfast maps onto agent types. Fields Letta has and
 * Holdfast does not use (embedding settings, sources, identities…) are accepted and ignored, so
 * Letta's clients work unchanged; fields it uses are validated strictly.
 */
export const CreateAgentRequest = AgentSettings.extend({
  agent_type: z.string().min(1).max(100).optional(),
  llm_config: z.object({ handle: z.string().nullish(), model: z.string().nullish() }).nullish(),
  memory_blocks: z.array(CreateBlock).max(100).nullish(),
  tools: z.array(z.string().min(1).max(64)).max(200).nullish(),
  /** Tools to attach by id (`tool-<name>`, as `GET /v1/tools/` lists them). */
  tool_ids: z.array(z.string().min(1).max(200)).max(200).nullish(),
  include_base_tools: z.boolean().optional(),
});
export type CreateAgentRequest = z.infer<typeof CreateAgentRequest>;

/**
 * `PATCH /v1/agents/{id}`: the same fields, all optional. The type and the tools do not change
 * here; Letta's clients may still send them, and a value that would change them is a 422 that
 * says where to go instead, never a 200 that ignores it.
 */
export const UpdateAgentRequest = AgentSettings.extend({
  agent_type: CreateAgentRequest.shape.agent_type,
  tools: CreateAgentRequest.shape.tools,
  tool_ids: CreateAgentRequest.shape.tool_ids,
});
export type UpdateAgentRequest = z.infer<typeof UpdateAgentRequest>;

const TextPart = z.object({ type: z.literal("text"), text: z.string().max(1_000_000) });

/** A human's decision on a call waiting for approval. */
const ApprovalEntry = z.object({
  type: z.literal("approval").optional(),
  tool_call_id: z.string().min(1).max(200),
  approve: z.boolean(),
  reason: z.string().max(10_000).nullish(),
});

/** A client's result for a call of one of its client tools (Letta's `ToolReturn`). */
const ToolReturnEntry = z.object({
  type: z.literal("tool"),
  tool_call_id: z.string().min(1).max(200),
  /** Text, or text parts (joined); images are not supported in tool returns here. */
  tool_return: z.union([z.string().max(1_000_000), z.array(TextPart).min(1).max(100)]),
  status: ToolStatus,
  stdout: z.array(z.string().max(100_000)).max(1000).nullish(),
  stderr: z.array(z.string().max(100_000)).max(1000).nullish(),
});

/**
 * One input message: a user message, or answers to pending approvals and client tool calls.
 * Told apart by `type`, so a bad field is named (`messages.0.role`), not the whole message.
 */
export const MessageCreate = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("approval"),
      approvals: z
        .array(z.discriminatedUnion("type", [ToolReturnEntry, ApprovalEntry]))
        .min(1)
        .max(100)
        .optional(),
      /** Letta's older single decision: `approval_request_id` names the tool call. */
      approve: z.boolean().nullish(),
      approval_request_id: z.string().min(1).max(200).nullish(),
      reason: z.string().max(10_000).nullish(),
    })
    .refine(
      (m) => m.approvals !== undefined || (m.approve != null && m.approval_request_id != null),
      { message: "send 'approvals', or 'approve' with 'approval_request_id'", path: ["approvals"] },
    ),
  z.object({
    type: z.literal("message").optional(),
    role: z.enum(["user", "system"]).default("user"),
    content: z.union([z.string().max(1_000_000), z.array(TextPart).min(1).max(100)]),
    otid: z.string().min(1).max(200).nullish(),
  }),
]);
export type MessageCreate = z.infer<typeof MessageCreate>;

/** `POST /v1/agents/{id}/messages`. */
export const SendMessagesRequest = z
  .object({
    messages: z.array(MessageCreate).min(1).max(100).optional(),
    input: z.string().max(1_000_000).optional(),
    streaming: z.boolean().optional(),
    stream_tokens: z.boolean().optional(),
    include_pings: z.boolean().optional(),
    max_steps: z.int().min(1).max(1000).optional(),
    /** Only these message types in the answer (Letta's filter). */
    include_return_message_types: z.array(MessageType).max(20).nullish(),
    /** Tools the caller runs itself, offered for this run only. */
    client_tools: z.array(ClientTool).max(100).nullish(),
    /** Letta's call back when an async run ends: refused (`refuseCallbackUrl`), never dropped. */
    callback_url: z.string().max(2000).nullish(),
  })
  .refine((body) => body.messages !== undefined || body.input !== undefined, {
    message: "send either 'messages' or 'input'",
    path: ["messages"],
  })
  // Letta refuses both at once (letta/schemas/letta_request.py, LettaRequest's validator).
  .refine((body) => body.messages === undefined || body.input === undefined, {
    message: "send 'messages' or 'input', not both",
    path: ["input"],
  });
export type SendMessagesRequest = z.infer<typeof SendMessagesRequest>;

/** Letta's list query: cursors relative to the order, newest first by default. */
export const ListQuery = z.object({
  after: z.string().max(200).optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type ListQuery = z.infer<typeof ListQuery>;
