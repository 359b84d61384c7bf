import { z } from "zod";

/**
 * A conversation of an agent (Letta's `Conversation`, decision 026): its own message history,
 * with the agent's memory shared by all of them. The agent's default conversation has no
 * record: its messages are those with no `conversation_id`.
 */
export const ConversationRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  /** Letta's `summary`: a caller's summary of the conversation (not the context's summary). */
  summary: z.string().nullable(),
  description: z.string().nullable(),
  /** A model handle for this conversation's runs (kept and shown; the agent's model runs). */
  model: z.string().nullable(),
  context_window_limit: z.int().min(1).nullable(),
  /** Hidden from listings unless asked for (Letta's `hidden` on create). */
  hidden: z.boolean(),
  archived: z.boolean(),
  archived_at_ms: z.number().nullable(),
  last_message_at_ms: z.number().nullable(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type ConversationRecord = z.infer<typeof ConversationRecord>;
