import { RunRecord } from "../../records/agent-record.js";
import type { Passage } from "../../records/memory-records.js";
import { AgentMessage } from "../../records/messages.js";
import { searchableText } from "../searchable-text.js";
import type { PageQuery, RunFilter } from "../store.js";
import { runStatuses } from "../store-rows.js";
import { ownedTerms } from "./full-text.js";
import { bodies, pageBounds, seqFrom, text } from "./rows.js";
import type { Statements } from "./statements.js";

/** Rows the SQLite store writes with their index entries, and its reads of runs. */

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

export function listRunMessages(sql: Statements, runId: string): AgentMessage[] {
  const start = sql.runStart.get(runId);
  if (!start) return [];
  // Only a run of a version 1 database has no start: it is read from its agent's first message.
  const from = typeof start.first_seq === "number" ? start.first_seq : 0;
  const rows = sql.runMessages.all(text(start, "agent_id"), from, runId);
  return bodies(rows, AgentMessage, "message");
}

export function listRuns(sql: Statements, filter: RunFilter, page: PageQuery): RunRecord[] {
  const agent = filter.agentId ?? null;
  const bounds = pageBounds(page, (id) => seqFrom(sql.runOrder, id, filter.projectId, agent));
  if (!bounds) return [];
  const statuses = runStatuses(filter);
  const statement = page.order === "asc" ? sql.runsAsc : sql.runsDesc;
  const { lower, upper, limit } = bounds;
  const wanted = statuses ? JSON.stringify(statuses) : null;
  const rows = statement.all(filter.projectId, agent, wanted, lower, upper, limit);
  return bodies(rows, RunRecord, "run");
}
