import { ConflictError, NotFoundError } from "../../core/errors.js";
import type { AgentRecord } from "../../records/agent-record.js";
import { ConversationRecord } from "../../records/conversation.js";
import { AgentMessage } from "../../records/messages.js";
import type {
  ConversationFilter,
  ConversationStore,
  MessageFilter,
  OwnedMessage,
} from "../conversation-store.js";
import type { PageQuery } from "../store.js";
import { parseInput } from "../store-rows.js";
import { copy, pageOf } from "./rows.js";

/** What the in-memory conversations read of the store they belong to. */
export interface ConversationHost {
  agent(agentId: string): { record: AgentRecord; messages: readonly AgentMessage[] } | undefined;
  /** Every agent id, in creation order. */
  agentIds(): string[];
  /** A message's place among all messages ever stored (SQLite's `seq`). */
  messageSeq(messageId: string): number | undefined;
  /** Stores messages as a commit does: all, or none if an id is taken. */
  append(agentId: string, messages: readonly AgentMessage[]): void;
}

/** Conversations in process memory, as SQLite keeps them (`conversation-store.ts`). */
export class InMemoryConversations implements ConversationStore {
  /** In creation order (a Map keeps insertion order). */
  readonly #conversations = new Map<string, ConversationRecord>();

  constructor(private readonly host: ConversationHost) {}

  async create(
    conversation: ConversationRecord,
    messages: readonly AgentMessage[] = [],
  ): Promise<void> {
    const record = copy(parseInput(ConversationRecord, conversation, ["conversation"]));
    const copies = messages.map((m, i) => ({
      ...copy(parseInput(AgentMessage, m, ["messages", i])),
      conversation_id: record.id,
    }));
    if (!this.host.agent(record.agent_id)) throw new NotFoundError("agent", record.agent_id);
    if (this.#conversations.has(record.id))
      throw new ConflictError(`conversation '${record.id}' already exists`);
    this.host.append(record.agent_id, copies);
    this.#conversations.set(record.id, record);
  }

  async get(id: string): Promise<ConversationRecord | null> {
    const found = this.#conversations.get(id);
    return found ? copy(found) : null;
  }

  async update(conversation: ConversationRecord): Promise<boolean> {
    const record = copy(parseInput(ConversationRecord, conversation, ["conversation"]));
    const found = this.#conversations.get(record.id);
    if (!found || found.agent_id !== record.agent_id) return false;
    this.#conversations.set(record.id, record);
    return true;
  }

  async delete(id: string): Promise<boolean> {
    return this.#conversations.delete(id);
  }

  /** Forgets a deleted agent's conversations. */
  forgetAgent(agentId: string): void {
    for (const [id, record] of this.#conversations)
      if (record.agent_id === agentId) this.#conversations.delete(id);
  }

  async list(filter: ConversationFilter, page: PageQuery): Promise<ConversationRecord[]> {
    const search = filter.summarySearch?.toLowerCase();
    const listed = [...this.#conversations.values()].filter(
      (c) =>
        this.host.agent(c.agent_id)?.record.project_id === filter.projectId &&
        (filter.agentId === undefined || c.agent_id === filter.agentId) &&
        (filter.archived === undefined || c.archived === filter.archived) &&
        !c.hidden &&
        (search === undefined || (c.summary ?? "").toLowerCase().includes(search)),
    );
    return pageOf(listed, page).map(copy);
  }

  async listMessages(
    agentId: string,
    conversationId: string | null,
    page: PageQuery,
  ): Promise<AgentMessage[]> {
    const agent = this.host.agent(agentId);
    if (!agent) return [];
    const filter = { projectId: agent.record.project_id, agentId, conversationId };
    return (await this.listProjectMessages(filter, page)).map((owned) => owned.message);
  }

  async listProjectMessages(filter: MessageFilter, page: PageQuery): Promise<OwnedMessage[]> {
    const owned: (OwnedMessage & { id: string; seq: number })[] = [];
    for (const agentId of this.host.agentIds()) {
      const agent = this.host.agent(agentId);
      if (!agent || agent.record.project_id !== filter.projectId) continue;
      if (filter.agentId !== undefined && filter.agentId !== agentId) continue;
      for (const message of agent.messages) {
        if (!inConversation(message, filter.conversationId)) continue;
        const seq = this.host.messageSeq(message.id) ?? 0;
        owned.push({ id: message.id, seq, agentId, message });
      }
    }
    owned.sort((a, b) => a.seq - b.seq);
    return pageOf(owned, page).map(({ agentId, message }) => ({ agentId, message: copy(message) }));
  }

  async getMessage(projectId: string, messageId: string): Promise<OwnedMessage | null> {
    for (const agentId of this.host.agentIds()) {
      const agent = this.host.agent(agentId);
      if (agent?.record.project_id !== projectId) continue;
      const message = agent.messages.find((m) => m.id === messageId);
      if (message) return { agentId, message: copy(message) };
    }
    return null;
  }
}

/** Whether a message belongs to the conversation (null: the default; undefined: any). */
export function inConversation(
  message: AgentMessage,
  conversationId: string | null | undefined,
): boolean {
  if (conversationId === undefined) return true;
  return (message.conversation_id ?? null) === conversationId;
}
