import type pg from "pg";
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
import { pageBounds } from "./paging.js";
import { inTransaction } from "./pool.js";
import { bodies, body, type Row, seqOf, text } from "./rows.js";
import { writeMessages } from "./step-writer.js";

/** `$3` of the message statements: every conversation, the default one, or one by id (`$4`). */
const ALL = 0;
const DEFAULT = 1;
const ONE = 2;

const CONVERSATION_WHERE = `c.agent_id = a.id AND a.project_id = $1
  AND ($2::text IS NULL OR c.agent_id = $2)
  AND ($3::boolean IS NULL OR (c.body ->> 'archived')::boolean = $3)
  AND NOT (c.body ->> 'hidden')::boolean
  AND ($4::text IS NULL OR strpos(lower(coalesce(c.body ->> 'summary', '')), lower($4)) > 0)`;
const MESSAGE_WHERE = `m.agent_id = a.id AND a.project_id = $1
  AND ($2::text IS NULL OR m.agent_id = $2)
  AND ($3::int = ${ALL} OR ($3::int = ${DEFAULT} AND m.conversation_id IS NULL)
    OR m.conversation_id = $4::text)`;

/**
 * Conversations in PostgreSQL (decision 026): one row each, the record whole in `body`; a
 * message's conversation is a column generated from its body.
 */
export class PostgresConversations implements ConversationStore {
  constructor(private readonly pool: pg.Pool) {}

  async #rows(sql: string, params: unknown[]): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows;
  }

  async create(
    conversation: ConversationRecord,
    messages: readonly AgentMessage[] = [],
  ): Promise<void> {
    const record = parseInput(ConversationRecord, conversation, ["conversation"]);
    const copies = messages.map((m, i) => ({
      ...parseInput(AgentMessage, m, ["messages", i]),
      conversation_id: record.id,
    }));
    await inTransaction(
      this.pool,
      async (tx, agentKey) => {
        await tx.query("INSERT INTO conversations (id, agent_id, body) VALUES ($1, $2, $3)", [
          record.id,
          record.agent_id,
          JSON.stringify(record),
        ]);
        await writeMessages(tx, agentKey, record.agent_id, copies);
      },
      record.agent_id,
    );
  }

  async get(id: string): Promise<ConversationRecord | null> {
    const rows = await this.#rows("SELECT body FROM conversations WHERE id = $1", [id]);
    return body(rows[0], ConversationRecord, "conversation");
  }

  async update(conversation: ConversationRecord): Promise<boolean> {
    const record = parseInput(ConversationRecord, conversation, ["conversation"]);
    const result = await this.pool.query(
      "UPDATE conversations SET body = $1 WHERE id = $2 AND agent_id = $3",
      [JSON.stringify(record), record.id, record.agent_id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query("DELETE FROM conversations WHERE id = $1", [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(filter: ConversationFilter, page: PageQuery): Promise<ConversationRecord[]> {
    const params = [
      filter.projectId,
      filter.agentId ?? null,
      filter.archived ?? null,
      filter.summarySearch ?? null,
    ];
    const bounds = await pageBounds(page, async (id) =>
      seqOf(
        (
          await this.#rows(
            `SELECT c.seq FROM conversations AS c, agents AS a WHERE c.id = $5 AND ${CONVERSATION_WHERE}`,
            [...params, id],
          )
        )[0],
      ),
    );
    if (!bounds) return [];
    const order = page.order === "asc" ? "ASC" : "DESC";
    const rows = await this.#rows(
      `SELECT c.body FROM conversations AS c, agents AS a WHERE ${CONVERSATION_WHERE}
        AND c.seq > $5 AND c.seq < $6 ORDER BY c.seq ${order} LIMIT $7`,
      [...params, bounds.lower, bounds.upper, bounds.limit],
    );
    return bodies(rows, ConversationRecord, "conversation");
  }

  async listMessages(
    agentId: string,
    conversationId: string | null,
    page: PageQuery,
  ): Promise<AgentMessage[]> {
    const agent = await this.#rows("SELECT project_id FROM agents WHERE id = $1", [agentId]);
    if (!agent[0]) return [];
    const filter = { projectId: text(agent[0], "project_id"), agentId, conversationId };
    return (await this.listProjectMessages(filter, page)).map((owned) => owned.message);
  }

  async listProjectMessages(filter: MessageFilter, page: PageQuery): Promise<OwnedMessage[]> {
    const { conversationId } = filter;
    const mode = conversationId === undefined ? ALL : conversationId === null ? DEFAULT : ONE;
    const params = [filter.projectId, filter.agentId ?? null, mode, conversationId ?? null];
    const bounds = await pageBounds(page, async (id) =>
      seqOf(
        (
          await this.#rows(
            `SELECT m.seq FROM messages AS m, agents AS a WHERE m.id = $5 AND ${MESSAGE_WHERE}`,
            [...params, id],
          )
        )[0],
      ),
    );
    if (!bounds) return [];
    const order = page.order === "asc" ? "ASC" : "DESC";
    const rows = await this.#rows(
      `SELECT m.agent_id, m.body FROM messages AS m, agents AS a WHERE ${MESSAGE_WHERE}
        AND m.seq > $5 AND m.seq < $6 ORDER BY m.seq ${order} LIMIT $7`,
      [...params, bounds.lower, bounds.upper, bounds.limit],
    );
    return rows.map(owned);
  }

  async getMessage(projectId: string, messageId: string): Promise<OwnedMessage | null> {
    const rows = await this.#rows(
      `SELECT m.agent_id, m.body FROM messages AS m JOIN agents AS a ON a.id = m.agent_id
        WHERE m.id = $1 AND a.project_id = $2`,
      [messageId, projectId],
    );
    return rows[0] ? owned(rows[0]) : null;
  }

  /** The newest `count` messages of one conversation of the agent (null: the default), newest first. */
  async recentRows(agentId: string, count: number, conversationId: string | null) {
    const rows =
      conversationId === null
        ? await this.#rows(
            `SELECT body FROM messages WHERE agent_id = $1 AND conversation_id IS NULL
              ORDER BY seq DESC LIMIT $2`,
            [agentId, count],
          )
        : await this.#rows(
            `SELECT body FROM messages WHERE conversation_id = $1 AND agent_id = $2
              ORDER BY seq DESC LIMIT $3`,
            [conversationId, agentId, count],
          );
    return bodies(rows, AgentMessage, "message");
  }
}

function owned(row: Row): OwnedMessage {
  const [message] = bodies([row], AgentMessage, "message");
  return { agentId: text(row, "agent_id"), message: message as AgentMessage };
}
