/**
 * The SQL the PostgreSQL store runs. Lists page by `seq` between two exclusive bounds, so a
 * cursor costs one index lookup. Orders that tie on text sort by bytes (`COLLATE "C"`), as
 * SQLite does, whatever the database's collation.
 */
export const SQL = {
  insertAgent: "INSERT INTO agents (id, project_id, parent_id, body) VALUES ($1, $2, $3, $4)",
  childrenOf: "SELECT body FROM agents WHERE parent_id = $1 ORDER BY seq",
  getAgent: "SELECT body FROM agents WHERE id = $1",
  agentKey: "SELECT seq FROM agents WHERE id = $1",
  updateAgent: "UPDATE agents SET project_id = $1, parent_id = $2, body = $3 WHERE id = $4",
  deleteAgent: "DELETE FROM agents WHERE id = $1",
  agentSeq: "SELECT seq FROM agents WHERE id = $1 AND project_id = $2",
  agentsAsc: `SELECT body FROM agents WHERE project_id = $1 AND seq > $2 AND seq < $3
    ORDER BY seq ASC LIMIT $4`,
  agentsDesc: `SELECT body FROM agents WHERE project_id = $1 AND seq > $2 AND seq < $3
    ORDER BY seq DESC LIMIT $4`,

  runStart: "SELECT agent_id, first_seq FROM runs WHERE id = $1",
  runMessages: `SELECT body FROM messages WHERE agent_id = $1 AND seq >= $2 AND run_id = $3
    ORDER BY seq`,
  recentMessages: "SELECT body FROM messages WHERE agent_id = $1 ORDER BY seq DESC LIMIT $2",
  messageSeq: "SELECT seq FROM messages WHERE id = $1 AND agent_id = $2",
  messagesAsc: `SELECT body FROM messages WHERE agent_id = $1 AND seq > $2 AND seq < $3
    ORDER BY seq ASC LIMIT $4`,
  messagesDesc: `SELECT body FROM messages WHERE agent_id = $1 AND seq > $2 AND seq < $3
    ORDER BY seq DESC LIMIT $4`,
  countMessages: "SELECT count(*)::integer AS n FROM messages WHERE agent_id = $1",
  countPassages: "SELECT count(*)::integer AS n FROM passages WHERE agent_id = $1",

  insertPassages: `INSERT INTO passages (id, agent_id, text, tags, created_at_ms, terms)
    SELECT p.id, $1, p.text, p.tags, p.created_at_ms, p.terms::tsvector
    FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::float8[], $6::text[]) WITH ORDINALITY
      AS p (id, text, tags, created_at_ms, terms, n)
    ORDER BY p.n`,
  insertMessages: `INSERT INTO messages (id, agent_id, run_id, message_type, created_at,
      search_role, search_text, search_terms, body)
    SELECT m.id, $1, m.run_id, m.message_type, m.created_at, m.search_role, m.search_text,
      m.search_terms::tsvector, m.body
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::text[], $9::jsonb[]) WITH ORDINALITY
      AS m (id, run_id, message_type, created_at, search_role, search_text, search_terms, body, n)
    ORDER BY m.n`,
  deletePassage: "DELETE FROM passages WHERE agent_id = $1 AND id = $2",
  passageSeq: "SELECT seq FROM passages WHERE id = $1 AND agent_id = $2",
  // $5: words (lowercase) a passage must all hold, or NULL for every passage. strpos, not
  // LIKE: a word is text, never a pattern.
  passagesAsc: `SELECT id, text, tags, created_at_ms FROM passages
    WHERE agent_id = $1 AND seq > $2 AND seq < $3 AND ($5::text[] IS NULL OR NOT EXISTS (
      SELECT 1 FROM unnest($5::text[]) AS word WHERE strpos(lower(text), word) = 0))
    ORDER BY seq ASC LIMIT $4`,
  passagesDesc: `SELECT id, text, tags, created_at_ms FROM passages
    WHERE agent_id = $1 AND seq > $2 AND seq < $3 AND ($5::text[] IS NULL OR NOT EXISTS (
      SELECT 1 FROM unnest($5::text[]) AS word WHERE strpos(lower(text), word) = 0))
    ORDER BY seq DESC LIMIT $4`,

  loadSession: "SELECT version, body FROM sessions WHERE agent_id = $1",
  interruptedSessions: `SELECT agent_id FROM sessions
    WHERE phase IN ('running', 'awaiting_children') ORDER BY agent_id COLLATE "C"`,

  // A run's first_seq is set once, when it is first stored: the seq of its first message in
  // that commit, else above every message its agent has so far. One writer per agent makes
  // the agent's later messages come after it.
  putRun: `INSERT INTO runs (id, agent_id, idempotency_key, body, first_seq)
    VALUES ($1, $2, $3, $4,
      coalesce($5, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE agent_id = $2)))
    ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id,
      idempotency_key = excluded.idempotency_key, body = excluded.body`,
  getRun: "SELECT body FROM runs WHERE id = $1",
  findRunByKey: "SELECT body FROM runs WHERE agent_id = $1 AND idempotency_key = $2",
  runOrder: `SELECT r.seq FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE r.id = $1 AND a.project_id = $2 AND ($3::text IS NULL OR r.agent_id = $3)`,
  runsAsc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE a.project_id = $1 AND ($2::text IS NULL OR r.agent_id = $2)
      AND ($3::text[] IS NULL OR r.body ->> 'status' = ANY ($3))
      AND r.seq > $4 AND r.seq < $5
    ORDER BY r.seq ASC LIMIT $6`,
  runsDesc: `SELECT r.body FROM runs AS r JOIN agents AS a ON a.id = r.agent_id
    WHERE a.project_id = $1 AND ($2::text IS NULL OR r.agent_id = $2)
      AND ($3::text[] IS NULL OR r.body ->> 'status' = ANY ($3))
      AND r.seq > $4 AND r.seq < $5
    ORDER BY r.seq DESC LIMIT $6`,

  putChainRun: `INSERT INTO chain_runs (id, project_id, chain, status, body)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, chain = excluded.chain,
      status = excluded.status, body = excluded.body`,
  getChainRun: "SELECT body FROM chain_runs WHERE id = $1",
  chainRunSeq: `SELECT seq FROM chain_runs WHERE id = $1 AND project_id = $2
    AND ($3::text IS NULL OR chain = $3)`,
  chainRunsAsc: `SELECT body FROM chain_runs WHERE project_id = $1
    AND ($2::text IS NULL OR chain = $2) AND seq > $3 AND seq < $4 ORDER BY seq ASC LIMIT $5`,
  chainRunsDesc: `SELECT body FROM chain_runs WHERE project_id = $1
    AND ($2::text IS NULL OR chain = $2) AND seq > $3 AND seq < $4 ORDER BY seq DESC LIMIT $5`,
  unfinishedChainRuns: `SELECT body FROM chain_runs
    WHERE status IN ('running', 'awaiting_approval') ORDER BY seq`,

  putTimer: `INSERT INTO timers (agent_id, kind, due_at_ms) VALUES ($1, $2, $3)
    ON CONFLICT (agent_id, kind) DO UPDATE SET due_at_ms = excluded.due_at_ms`,
  clearTimer: "DELETE FROM timers WHERE agent_id = $1 AND kind = $2",
  allTimers: "SELECT agent_id, kind, due_at_ms FROM timers",
  waitingSessions: `SELECT agent_id, version, body FROM sessions
    WHERE phase IN ('paused', 'awaiting_approval') ORDER BY agent_id COLLATE "C"`,
  dueTimers: `SELECT agent_id, kind, due_at_ms FROM timers WHERE due_at_ms <= $1
    ORDER BY due_at_ms, agent_id COLLATE "C", kind COLLATE "C"`,
  nextTimer: `SELECT agent_id, kind, due_at_ms FROM timers
    ORDER BY due_at_ms, agent_id COLLATE "C", kind COLLATE "C" LIMIT 1`,
} as const;
