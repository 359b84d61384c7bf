import type { DatabaseSync, StatementSync } from "node:sqlite";
import { AGENT_FILTER, registerAgentFilter } from "./agent-filter.js";
import type { TransactionControl } from "./group-commit.js";
import { SEARCH_MESSAGES, SEARCH_PASSAGES } from "./search-statements.js";

/**
 * Every statement the SQLite store runs, prepared once when the store opens. Lists page by
 * `seq` between two exclusive bounds, so a cursor costs one index lookup, not a scan.
 */
const SQL = {
  begin: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  rollback: "ROLLBACK",
  savepoint: "SAVEPOINT step",
  release: "RELEASE step",
  rollbackToSavepoint: "ROLLBACK TO step",

  insertAgent: "INSERT INTO agents (id, project_id, parent_id, body) VALUES (?, ?, ?, ?)",
  childrenOf: "SELECT body FROM agents WHERE parent_id = ? ORDER BY seq",
  getAgent: "SELECT body FROM agents WHERE id = ?",
  agentKey: "SELECT seq FROM agents WHERE id = ?",
  updateAgent: "UPDATE agents SET project_id = ?, parent_id = ?, body = ? WHERE id = ?",
  deleteAgent: "DELETE FROM agents WHERE id = ?",
  agentSeq: "SELECT seq FROM agents WHERE id = ? AND project_id = ?",
  agentsAsc: `SELECT body FROM agents WHERE project_id = ? AND seq > ? AND seq < ?
    ORDER BY seq ASC LIMIT ?`,
  agentsDesc: `SELECT body FROM agents WHERE project_id = ? AND seq > ? AND seq < ?
    ORDER BY seq DESC LIMIT ?`,
  filteredAgentsAsc: `SELECT body FROM agents WHERE project_id = ?1 AND seq > ?2 AND seq < ?3
    AND ${AGENT_FILTER} ORDER BY seq ASC LIMIT ?4`,
  filteredAgentsDesc: `SELECT body FROM agents WHERE project_id = ?1 AND seq > ?2 AND seq < ?3
    AND ${AGENT_FILTER} ORDER BY seq DESC LIMIT ?4`,

  insertMessage: `INSERT INTO messages
    (id, agent_id, message_type, created_at, search_role, search_text, body, conversation_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  runStart: "SELECT agent_id, first_seq FROM runs WHERE id = ?",
  runMessages: `SELECT body FROM messages
    WHERE agent_id = ?1 AND seq >= ?2 AND json_extract(body, '$.run_id') = ?3 ORDER BY seq`,
  indexMessage: "INSERT INTO messages_fts (rowid, terms) VALUES (?, ?)",
  recentMessages: "SELECT body FROM messages WHERE agent_id = ? ORDER BY seq DESC LIMIT ?",
  messageSeq: "SELECT seq FROM messages WHERE id = ? AND agent_id = ?",
  messagesAsc: `SELECT body FROM messages WHERE agent_id = ? AND seq > ? AND seq < ?
    ORDER BY seq ASC LIMIT ?`,
  messagesDesc: `SELECT body FROM messages WHERE agent_id = ? AND seq > ? AND seq < ?
    ORDER BY seq DESC LIMIT ?`,
  countMessages: "SELECT count(*) AS n FROM messages WHERE agent_id = ?",
  countPassages: "SELECT count(*) AS n FROM passages WHERE agent_id = ?",
  searchMessages: SEARCH_MESSAGES,

  insertPassage: `INSERT INTO passages (id, agent_id, text, tags, created_at_ms)
    VALUES (?, ?, ?, ?, ?)`,
  indexPassage: "INSERT INTO passages_fts (rowid, terms) VALUES (?, ?)",
  deletePassage: "DELETE FROM passages WHERE agent_id = ? AND id = ?",
  passageSeq: "SELECT seq FROM passages WHERE id = ? AND agent_id = ?",
  // ?5: words (a JSON array, lowercase) a passage must all hold, or NULL for every passage.
  passagesAsc: `SELECT id, text, tags, created_at_ms FROM passages
    WHERE agent_id = ?1 AND seq > ?2 AND seq < ?3 AND (?5 IS NULL OR NOT EXISTS (
      SELECT 1 FROM json_each(?5) AS word WHERE instr(lower(text), word.value) = 0))
    ORDER BY seq ASC LIMIT ?4`,
  passagesDesc: `SELECT id, text, tags, created_at_ms FROM passages
    WHERE agent_id = ?1 AND seq > ?2 AND seq < ?3 AND (?5 IS NULL OR NOT EXISTS (
      SELECT 1 FROM json_each(?5) AS word WHERE instr(lower(text), word.value) = 0))
    ORDER BY seq DESC LIMIT ?4`,
  searchPassages: SEARCH_PASSAGES,

  putSession: `INSERT INTO sessions (agent_id, version, phase, body) VALUES (?, ?, ?, ?)
    ON CONFLICT (agent_id) DO UPDATE
    SET version = excluded.version, phase = excluded.phase, body = excluded.body`,
  loadSession: "SELECT version, body FROM sessions WHERE agent_id = ?",
  interruptedSessions: `SELECT agent_id FROM sessions
    WHERE phase IN ('running', 'awaiting_children') ORDER BY agent_id`,

  // A run's first_seq is set once, when it is first stored: the seq of its first message in
  // that commit, else the seq the next message will have (or above). Never updated, so a run of
  // a version 1 database keeps NULL (read from its agent's first message) when it carries on.
  putRun: `INSERT INTO runs (id, agent_id, idempotency_key, body, first_seq)
    VALUES (?1, ?2, ?3, ?4, coalesce(?5, (SELECT coalesce(max(seq), 0) + 1 FROM messages)))
    ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id,
      idempotency_key = excluded.idempotency_key, body = excluded.body`,
  getRun: "SELECT body FROM runs WHERE id = ?",
  findRunByKey: "SELECT body FROM runs WHERE agent_id = ? AND idempotency_key = ?",
  runOrder: `SELECT r.rowid AS seq FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE r.id = ?1 AND a.project_id = ?2 AND (?3 IS NULL OR r.agent_id = ?3)`,
  runsAsc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE a.project_id = ?1 AND (?2 IS NULL OR r.agent_id = ?2)
      AND (?3 IS NULL OR json_extract(r.body, '$.status') IN (SELECT value FROM json_each(?3)))
      AND r.rowid > ?4 AND r.rowid < ?5
    ORDER BY r.rowid ASC LIMIT ?6`,
  runsDesc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE a.project_id = ?1 AND (?2 IS NULL OR r.agent_id = ?2)
      AND (?3 IS NULL OR json_extract(r.body, '$.status') IN (SELECT value FROM json_each(?3)))
      AND r.rowid > ?4 AND r.rowid < ?5
    ORDER BY r.rowid DESC LIMIT ?6`,
  // One agent's runs through runs_by_agent: the forms above, with `?2 IS NULL OR`, make SQLite
  // walk every run of the database for each agent (an agents page read one such list per agent).
  agentRunsAsc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE r.agent_id = ?2 AND a.project_id = ?1
      AND (?3 IS NULL OR json_extract(r.body, '$.status') IN (SELECT value FROM json_each(?3)))
      AND r.rowid > ?4 AND r.rowid < ?5
    ORDER BY r.rowid ASC LIMIT ?6`,
  agentRunsDesc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE r.agent_id = ?2 AND a.project_id = ?1
      AND (?3 IS NULL OR json_extract(r.body, '$.status') IN (SELECT value FROM json_each(?3)))
      AND r.rowid > ?4 AND r.rowid < ?5
    ORDER BY r.rowid DESC LIMIT ?6`,

  putChainRun: `INSERT INTO chain_runs (id, project_id, chain, status, body) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, chain = excluded.chain,
      status = excluded.status, body = excluded.body`,
  getChainRun: "SELECT body FROM chain_runs WHERE id = ?",
  chainRunSeq: `SELECT seq FROM chain_runs WHERE id = ?1 AND project_id = ?2
    AND (?3 IS NULL OR chain = ?3)`,
  chainRunsAsc: `SELECT body FROM chain_runs WHERE project_id = ?1 AND (?2 IS NULL OR chain = ?2)
    AND seq > ?3 AND seq < ?4 ORDER BY seq ASC LIMIT ?5`,
  chainRunsDesc: `SELECT body FROM chain_runs WHERE project_id = ?1 AND (?2 IS NULL OR chain = ?2)
    AND seq > ?3 AND seq < ?4 ORDER BY seq DESC LIMIT ?5`,
  unfinishedChainRuns: `SELECT body FROM chain_runs
    WHERE status IN ('running', 'awaiting_approval') ORDER BY seq`,

  putTimer: `INSERT INTO timers (agent_id, kind, due_at_ms) VALUES (?, ?, ?)
    ON CONFLICT (agent_id, kind) DO UPDATE SET due_at_ms = excluded.due_at_ms`,
  clearTimer: "DELETE FROM timers WHERE agent_id = ? AND kind = ?",
  allTimers: "SELECT agent_id, kind, due_at_ms FROM timers",
  waitingSessions: `SELECT agent_id, version, body FROM sessions
    WHERE phase IN ('paused', 'awaiting_approval') ORDER BY agent_id`,
  dueTimers: `SELECT agent_id, kind, due_at_ms FROM timers WHERE due_at_ms <= ?
    ORDER BY due_at_ms, agent_id, kind`,
  nextTimer: `SELECT agent_id, kind, due_at_ms FROM timers
    ORDER BY due_at_ms, agent_id, kind LIMIT 1`,
} as const;

export type Statements = { readonly [K in keyof typeof SQL]: StatementSync };

export function prepareStatements(db: DatabaseSync): Statements {
  registerAgentFilter(db);
  const entries = Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)] as const);
  return Object.fromEntries(entries) as Statements;
}

/** The transaction statements group commit runs, on this connection. */
export function transactionControl(db: DatabaseSync, sql: Statements): TransactionControl {
  return {
    begin: () => sql.begin.run(),
    commit: () => sql.commit.run(),
    rollback: () => {
      if (db.isTransaction) sql.rollback.run();
    },
    savepoint: () => sql.savepoint.run(),
    release: () => sql.release.run(),
    rollbackToSavepoint: () => sql.rollbackToSavepoint.run(),
  };
}
