import { z } from "zod";
import { ListQuery, SendMessagesRequest } from "./requests.js";

/** Letta's ids are short strings; a conversation may be named `default` with an agent id. */
const Id = z.string().min(1).max(200);
const Text = z.string().max(100_000);

/** `POST /v1/conversations/?agent_id=…` (Letta's `CreateConversation`). */
export const CreateConversationRequest = z.object({
  summary: Text.nullish(),
  description: Text.nullish(),
  model: z.string().min(1).max(300).nullish(),
  model_settings: z.looseObject({}).nullish(),
  context_window_limit: z.int().min(1).max(100_000_000).nullish(),
  hidden: z.boolean().optional(),
});
export type CreateConversationRequest = z.infer<typeof CreateConversationRequest>;

export const AgentIdQuery = z.object({ agent_id: Id });

/** `PATCH /v1/conversations/{id}` (Letta's `UpdateConversation`). */
export const UpdateConversationRequest = z.object({
  summary: Text.nullish(),
  description: Text.nullish(),
  model: z.string().min(1).max(300).nullish(),
  model_settings: z.looseObject({}).nullish(),
  context_window_limit: z.int().min(1).max(100_000_000).nullish(),
  archived: z.boolean().nullish(),
  last_message_at: z.iso.datetime({ offset: true }).nullish(),
});
export type UpdateConversationRequest = z.infer<typeof UpdateConversationRequest>;

/** `GET /v1/conversations/`: Letta's defaults (newest first, 50, not archived). */
export const ConversationListQuery = z.object({
  agent_id: Id.optional(),
  after: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  order: z.enum(["asc", "desc"]).default("desc"),
  /** Only creation order is kept; the other orders Letta offers are refused, not ignored. */
  order_by: z.literal("created_at").default("created_at"),
  archive_status: z.enum(["unarchived", "archived", "all"]).default("unarchived"),
  summary_search: z.string().max(1000).optional(),
});
export type ConversationListQuery = z.infer<typeof ConversationListQuery>;

/** `?agent_id=` of the routes that take `default` as a conversation id (agent-direct mode). */
export const OptionalAgentQuery = z.object({ agent_id: Id.optional() });

/** `GET /v1/conversations/{id}/messages`. */
export const ConversationMessagesQuery = ListQuery.extend({
  agent_id: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type ConversationMessagesQuery = z.infer<typeof ConversationMessagesQuery>;

/** `POST /v1/conversations/{id}/messages`: an agent's send request; SSE unless `streaming: false`. */
export const ConversationSendRequest = SendMessagesRequest.and(
  z.object({ agent_id: Id.nullish() }),
);
export type ConversationSendRequest = z.infer<typeof ConversationSendRequest>;

/** `POST /v1/conversations/{id}/fork?agent_id=&message_id=&hidden=`. */
export const ForkQuery = z.object({
  agent_id: Id.optional(),
  message_id: Id.optional(),
  hidden: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

/** Letta's `CompactionSettings`, as far as Holdfast uses it. */
const CompactionSettings = z.looseObject({
  mode: z
    .enum(["all", "sliding_window", "self_compact_all", "self_compact_sliding_window"])
    .optional(),
  sliding_window_percentage: z.number().min(0).max(1).optional(),
});

/** `POST /v1/conversations/{id}/compact` and `POST /v1/agents/{id}/summarize`. */
export const CompactRequestBody = z.object({
  agent_id: Id.nullish(),
  compaction_settings: CompactionSettings.nullish(),
});
export type CompactRequestBody = z.infer<typeof CompactRequestBody>;

/** `POST /v1/conversations/{id}/stream`: re-attach to the conversation's run. */
export const ConversationStreamRequest = z.looseObject({
  agent_id: Id.nullish(),
  run_id: Id.nullish(),
  otid: Id.nullish(),
  starting_after: z.int().min(0).optional(),
});
export type ConversationStreamRequest = z.infer<typeof ConversationStreamRequest>;

/** `GET /v1/messages/`. */
export const GlobalMessagesQuery = ListQuery.extend({
  conversation_id: Id.optional(),
  include_return_message_types: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
});
export type GlobalMessagesQuery = z.infer<typeof GlobalMessagesQuery>;

/** `POST /v1/messages/search` (Letta's `MessageSearchRequest`). */
export const MessageSearchRequest = z.object({
  query: z.string().min(1).max(10_000),
  agent_id: Id.nullish(),
  conversation_id: Id.nullish(),
  start_date: z.iso.datetime({ offset: true }).nullish(),
  end_date: z.iso.datetime({ offset: true }).nullish(),
  limit: z.int().min(1).max(100).default(50),
  /** Full text search runs whatever the mode; vectors join in where the agent has them. */
  search_mode: z.enum(["vector", "fts", "hybrid"]).default("hybrid"),
});
export type MessageSearchRequest = z.infer<typeof MessageSearchRequest>;
