import type { DatabaseSync, StatementSync } from "node:sqlite";
import { NotFoundError } from "../../core/errors.js";
import { ConversationRecord } from "../../records/conversation.js";
import { AgentMessage } from "../../records/messages.js";
import type {
  ConversationFilter,
  ConversationStore,
  MessageFilter,
  OwnedMessage,
} from "../conversation-store.js";
import type { PageQuery } from "../store.js";
import { decodeRow, parseInput } from "../store-rows.js";
import { bodies, body, changed, pageBounds, seqFrom, storageError, text } from "./rows.js";
import { writeMessage } from "./rows-written.js";
import type { Statements } from "./statements.js";

/** `?3` of the message statements: every conversation, the default one, or one by id (`?4`). */
const ALL = 0;
const DEFAULT = 1;
const ONE = 2;

const CONVERSATION_WHERE = `c.agent_id = a.id AND a.project_id = ?1 AND (?2 IS NULL OR c.agent_id = ?2)
  AND (?3 IS NULL OR json_extract(c.body, '$.archived') = ?3)
  AND json_extract(c.body, '$.hidden') = 0
  AND (?4 IS NULL OR instr(lower(coalesce(json_extract(c.body, '$.summary'), '')), lower(?4)) > 0)`;
const MESSAGE_WHERE = `m.agent_id = a.id AND a.project_id = ?1 AND (?2 IS NULL OR m.agent_id = ?2)
  AND (?3 = ${ALL} OR (?3 = ${DEFAULT} AND m.conversation_id IS NULL) OR m.conversation_id = ?4)`;

/**
 * Conversations in SQLite (decision 026): one row each, the record whole in `body`; the
 * conversation of a message is its `conversation_id` column. Each write is one transaction,
 * begun and ended without yielding to the event loop (as group commit requires).
 */
export class SqliteConversations implements ConversationStore {
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #get: StatementSync;
  readonly #conversationSeq: StatementSync;
  readonly #conversationsAsc: StatementSync;
  readonly #conversationsDesc: StatementSync;
  readonly #messageSeq: StatementSync;
  readonly #messagesAsc: StatementSync;
  readonly #messagesDesc: StatementSync;

  constructor(db: DatabaseSync, sql: Statements) {
    this.#db = db;
    this.#sql = sql;
    this.#get = db.prepare("SELECT body FROM conversations WHERE id = ?");
    this.#conversationSeq = db.prepare(`SELECT c.seq FROM conversations AS c, agents AS a
      WHERE c.id = ?5 AND ${CONVERSATION_WHERE}`);
    const conversations = (order: string) =>
      db.prepare(`SELECT c.body FROM conversations AS c, agents AS a WHERE ${CONVERSATION_WHERE}
        AND c.seq > ?5 AND c.seq < ?6 ORDER BY c.seq ${order} LIMIT ?7`);
    this.#conversationsAsc = conversations("ASC");
    this.#conversationsDesc = conversations("DESC");
    this.#messageSeq = db.prepare(`SELECT m.seq FROM messages AS m, agents AS a
      WHERE m.id = ?5 AND ${MESSAGE_WHERE}`);
    const messages = (order: string) =>
      db.prepare(`SELECT m.agent_id, m.body FROM messages AS m, agents AS a WHERE ${MESSAGE_WHERE}
        AND m.seq > ?5 AND m.seq < ?6 ORDER BY m.seq ${order} LIMIT ?7`);
    this.#messagesAsc = messages("ASC");
    this.#messagesDesc = messages("DESC");
  }

  async create(
    conversation: ConversationRecord,
    messages: readonly AgentMessage[] = [],
  ): Promise<void> {
    const record = parseInput(ConversationRecord, conversation, ["conversation"]);
    const copies = messages.map((m, i) => parseInput(AgentMessage, m, ["messages", i]));
    this.#transaction(record.agent_id, (agentKey) => {
      this.#db
        .prepare("INSERT INTO conversations (id, agent_id, body) VALUES (?, ?, ?)")
        .run(record.id, record.agent_id, JSON.stringify(record));
      for (const message of copies) {
        writeMessage(this.#sql, agentKey, record.agent_id, {
          ...message,
          conversation_id: record.id,
        });
      }
    });
  }

  async get(id: string): Promise<ConversationRecord | null> {
    return body(this.#get.get(id), ConversationRecord, "conversation");
  }

  async update(conversation: ConversationRecord): Promise<boolean> {
    const record = parseInput(ConversationRecord, conversation, ["conversation"]);
    const result = this.#db
      .prepare("UPDATE conversations SET body = ? WHERE id = ? AND agent_id = ?")
      .run(JSON.stringify(record), record.id, record.agent_id);
    return changed(result);
  }

  async delete(id: string): Promise<boolean> {
    return changed(this.#db.prepare("DELETE FROM conversations WHERE id = ?").run(id));
  }

  async list(filter: ConversationFilter, page: PageQuery): Promise<ConversationRecord[]> {
    const params = [
      filter.projectId,
      filter.agentId ?? null,
      filter.archived === undefined ? null : Number(filter.archived),
      filter.summarySearch ?? null,
    ] as const;
    const bounds = pageBounds(page, (id) => seqWith(this.#conversationSeq, [...params, id]));
    if (!bounds) return [];
    const statement = page.order === "asc" ? this.#conversationsAsc : this.#conversationsDesc;
    const rows = statement.all(...params, bounds.lower, bounds.upper, bounds.limit);
    return bodies(rows, ConversationRecord, "conversation");
  }

  async listMessages(
    agentId: string,
    conversationId: string | null,
    page: PageQuery,
  ): Promise<AgentMessage[]> {
    const agent = this.#db.prepare("SELECT project_id FROM agents WHERE id = ?").get(agentId);
    if (!agent) return [];
    const filter = { projectId: text(agent, "project_id"), agentId, conversationId };
    return (await this.listProjectMessages(filter, page)).map((owned) => owned.message);
  }

  async listProjectMessages(filter: MessageFilter, page: PageQuery): Promise<OwnedMessage[]> {
    const { conversationId } = filter;
    const mode = conversationId === undefined ? ALL : conversationId === null ? DEFAULT : ONE;
    const params = [filter.projectId, filter.agentId ?? null, mode, conversationId ?? null];
    const bounds = pageBounds(page, (id) => seqWith(this.#messageSeq, [...params, id]));
    if (!bounds) return [];
    const statement = page.order === "asc" ? this.#messagesAsc : this.#messagesDesc;
    const rows = statement.all(...params, bounds.lower, bounds.upper, bounds.limit);
    return rows.map((row) => ({
      agentId: text(row, "agent_id"),
      message: decodeRow(AgentMessage, text(row, "body"), "message"),
    }));
  }

  async getMessage(projectId: string, messageId: string): Promise<OwnedMessage | null> {
    const row = this.#db
      .prepare(`SELECT m.agent_id, m.body FROM messages AS m JOIN agents AS a ON a.id = m.agent_id
        WHERE m.id = ? AND a.project_id = ?`)
      .get(messageId, projectId);
    if (!row) return null;
    const message = decodeRow(AgentMessage, text(row, "body"), "message");
    return { agentId: text(row, "agent_id"), message };
  }

  /** The newest `count` messages of one conversation of the agent (null: the default), newest first. */
  recentRows(agentId: string, count: number, conversationId: string | null) {
    const rows =
      conversationId === null
        ? this.#db
            .prepare(`SELECT body FROM messages WHERE agent_id = ? AND conversation_id IS NULL
              ORDER BY seq DESC LIMIT ?`)
            .all(agentId, count)
        : this.#db
            .prepare(`SELECT body FROM messages WHERE conversation_id = ? AND agent_id = ?
              ORDER BY seq DESC LIMIT ?`)
            .all(conversationId, agentId, count);
    return bodies(rows, AgentMessage, "message");
  }

  #transaction(agentId: string, work: (agentKey: number) => void): void {
    try {
      this.#sql.begin.run();
    } catch (error) {
      throw storageError(error, agentId);
    }
    try {
      const agentKey = seqFrom(this.#sql.agentKey, agentId);
      if (agentKey === null) throw new NotFoundError("agent", agentId);
      work(agentKey);
      this.#sql.commit.run();
    } catch (error) {
      if (this.#db.isTransaction) this.#sql.rollback.run();
      throw storageError(error, agentId);
    }
  }
}

function seqWith(statement: StatementSync, params: readonly (string | number | null)[]) {
  const seq = statement.get(...params)?.seq;
  return typeof seq === "number" ? seq : null;
}
