import { RunRecord } from "../../records/agent-record.js";
import { AgentMessage } from "../../records/messages.js";
import type { PageQuery, RunFilter } from "../store.js";
import { runStatuses } from "../store-rows.js";
import { bodies, body, pageBounds, seqFrom, text } from "./rows.js";
import type { Statements } from "./statements.js";

/** Runs in SQLite: one row each, the record whole in `body`; listed by rowid (creation order). */

/**
 * Writes a run (inside a transaction). When it is new, `firstSeq` (its first message in this
 * commit) marks where its messages begin; without one, they begin after every message stored.
 */
export function writeRun(sql: Statements, run: RunRecord, firstSeq: number | null = null): void {
  sql.putRun.run(run.id, run.agent_id, run.idempotency_key, JSON.stringify(run), firstSeq);
}

export function readRun(sql: Statements, runId: string): RunRecord | null {
  return body(sql.getRun.get(runId), RunRecord, "run");
}

export function runByKey(sql: Statements, agentId: string, key: string): RunRecord | null {
  return body(sql.findRunByKey.get(agentId, key), RunRecord, "run");
}

export function runMessages(sql: Statements, runId: string): AgentMessage[] {
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
  const statement = agent
    ? page.order === "asc"
      ? sql.agentRunsAsc
      : sql.agentRunsDesc
    : page.order === "asc"
      ? sql.runsAsc
      : sql.runsDesc;
  const { lower, upper, limit } = bounds;
  const wanted = statuses ? JSON.stringify(statuses) : null;
  const rows = statement.all(filter.projectId, agent, wanted, lower, upper, limit);
  return bodies(rows, RunRecord, "run");
}
