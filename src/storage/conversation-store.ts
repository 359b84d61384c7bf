import type { ConversationRecord } from "../records/conversation.js";
import type { AgentMessage } from "../records/messages.js";
import type { PageQuery } from "./store.js";

/** Which conversations to list: a project's, optionally one agent's (decision 026). */
export interface ConversationFilter {
  projectId: string;
  agentId?: string | undefined;
  /** Archived only (true), not archived (false), or both (undefined). */
  archived?: boolean | undefined;
  /** Only those whose summary holds this text (any case). */
  summarySearch?: string | undefined;
}

/**
 * Which messages to list across a project's agents: optionally one agent's, optionally one
 * conversation's (`null`: the default conversations, messages with none).
 */
export interface MessageFilter {
  projectId: string;
  agentId?: string | undefined;
  conversationId?: string | null | undefined;
}

/** A message with the agent it belongs to. */
export interface OwnedMessage {
  agentId: string;
  message: AgentMessage;
}

/**
 * An agent's conversations (decision 026) and the message reads that cross agents or keep to a
 * conversation. Conversations are listed in creation order and paged like every list (a cursor
 * that is not a conversation of the filter gives an empty page); `hidden` ones are never listed.
 * Deleting an agent deletes its conversations; deleting a conversation keeps its messages.
 */
export interface ConversationStore {
  /**
   * Creates a conversation of an existing agent (else NotFoundError), with the messages it
   * starts with (a fork's copies, each with this conversation's id and a new id), atomically.
   */
  create(conversation: ConversationRecord, messages?: readonly AgentMessage[]): Promise<void>;
  get(id: string): Promise<ConversationRecord | null>;
  /** Replaces an existing conversation's record (its agent stays); false if there is none. */
  update(conversation: ConversationRecord): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  list(filter: ConversationFilter, page: PageQuery): Promise<ConversationRecord[]>;
  /** A page of one agent's messages of one conversation (null: the default one), by creation. */
  listMessages(
    agentId: string,
    conversationId: string | null,
    page: PageQuery,
  ): Promise<AgentMessage[]>;
  /** A page of the messages of a project's agents, in creation order across agents. */
  listProjectMessages(filter: MessageFilter, page: PageQuery): Promise<OwnedMessage[]>;
  /** A message by id among the project's agents; null if none. */
  getMessage(projectId: string, messageId: string): Promise<OwnedMessage | null>;
}
