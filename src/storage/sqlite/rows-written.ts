import type { Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { searchableText } from "../searchable-text.js";
import { ownedTerms } from "./full-text.js";
import type { Statements } from "./statements.js";

/** Rows the SQLite store writes with their index entries. */

/** Writes a message and its search entry; returns its `seq`. */
export function writeMessage(
  sql: Statements,
  agentKey: number,
  agentId: string,
  message: AgentMessage,
): number {
  const found = searchableText(message);
  const { lastInsertRowid } = sql.insertMessage.run(
    message.id,
    agentId,
    message.message_type,
    message.date,
    found?.role ?? null,
    found?.text ?? null,
    JSON.stringify(message),
    message.conversation_id ?? null,
  );
  if (found) sql.indexMessage.run(lastInsertRowid, ownedTerms(agentKey, found.text));
  return Number(lastInsertRowid);
}

export function writePassage(
  sql: Statements,
  agentKey: number,
  agentId: string,
  passage: Passage,
): void {
  const { id, text: content, created_at_ms: at } = passage;
  const row = sql.insertPassage.run(id, agentId, content, JSON.stringify(passage.tags), at);
  sql.indexPassage.run(row.lastInsertRowid, ownedTerms(agentKey, content));
}
