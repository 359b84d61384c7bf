import type { DatabaseSync } from "node:sqlite";
import { ENTITY_MIGRATIONS } from "./entity-migrations.js";
import { OWNED_TERMS_FUNCTION, registerOwnedTerms } from "./full-text.js";

/**
 * The SQLite schema, as an ordered list of migrations: migration `i` brings the schema to
 * version `i + 1`. Never edit a released migration; append a new one.
 *
 * Rows are per agent, per block, per message and per passage (never one blob per agent). Full-
 * text search uses contentless FTS5 tables over `messages.search_text` and `passages.text`.
 * The store indexes a row as it inserts it, each word as a term of its agent (`full-text.ts`),
 * so that a search reads only its agent's postings; triggers unindex deleted rows, so deleting
 * an agent (which cascades) empties its part too.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE agents (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX agents_by_project ON agents (project_id, seq);

  CREATE TABLE blocks (
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (agent_id, label)
  ) STRICT;

  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    message_type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    search_role TEXT,
    search_text TEXT,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX messages_by_agent ON messages (agent_id, seq);
  CREATE VIRTUAL TABLE messages_fts USING fts5 (
    owner, search_text, content = '', contentless_delete = 1
  );
  CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
  WHEN old.search_text IS NOT NULL BEGIN
    DELETE FROM messages_fts WHERE rowid = old.seq;
  END;

  CREATE TABLE passages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    tags TEXT NOT NULL,
    created_at_ms REAL NOT NULL
  ) STRICT;
  CREATE INDEX passages_by_agent ON passages (agent_id, seq);
  CREATE VIRTUAL TABLE passages_fts USING fts5 (
    owner, text, content = '', contentless_delete = 1
  );
  CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
    DELETE FROM passages_fts WHERE rowid = old.seq;
  END;

  CREATE TABLE sessions (
    agent_id TEXT PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    phase TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX sessions_running ON sessions (agent_id) WHERE phase = 'running';

  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    idempotency_key TEXT,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX runs_by_agent ON runs (agent_id);
  CREATE UNIQUE INDEX runs_by_key ON runs (agent_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

  CREATE TABLE timers (
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    due_at_ms REAL NOT NULL,
    PRIMARY KEY (agent_id, kind)
  ) STRICT;
  CREATE INDEX timers_by_due ON timers (due_at_ms, agent_id, kind);
  `,
  // 2: sub-agents and runs. Where a run's messages begin (so reading a run is a short range of
  // its agent's messages, without an index every message insert would pay for; NULL for the
  // runs already stored, which are read from their agent's first message), an agent's children
  // by parent, and sessions waiting for children among those to re-drive. Runs list by rowid
  // (creation order; an upsert keeps a row's rowid).
  `
  ALTER TABLE runs ADD COLUMN first_seq INTEGER;

  ALTER TABLE agents ADD COLUMN parent_id TEXT;
  UPDATE agents SET parent_id = json_extract(body, '$.parent_id');
  CREATE INDEX agents_by_parent ON agents (parent_id, seq) WHERE parent_id IS NOT NULL;

  DROP INDEX sessions_running;
  CREATE INDEX sessions_interrupted ON sessions (agent_id)
  WHERE phase IN ('running', 'awaiting_children');
  `,
  // 3: chain runs, one row each, rewritten whole; listed by seq, the unfinished ones found at
  // start-up through a partial index.
  `
  CREATE TABLE chain_runs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    chain TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX chain_runs_by_project ON chain_runs (project_id, seq);
  CREATE INDEX chain_runs_unfinished ON chain_runs (seq)
  WHERE status IN ('running', 'awaiting_approval');
  `,
  // 4: a block found by its id without reading every agent's blocks (Letta's block routes
  // name blocks by id); the id lives in the body, so the column is generated from it.
  `
  ALTER TABLE blocks ADD COLUMN block_id TEXT
    GENERATED ALWAYS AS (json_extract(body, '$.id')) VIRTUAL;
  CREATE INDEX blocks_by_id ON blocks (block_id);
  `,
  // 5: full-text terms partitioned by agent (`full-text.ts`, decision 010). The owner token
  // made every search walk all of its agent's postings and BM25 count each word over every
  // agent; now each word is indexed as the agent's own term. Both indexes are rebuilt from the
  // rows they index, through the SQL function `full-text.ts` registers before migrating.
  `
  DROP TRIGGER passages_fts_delete;
  DROP TABLE passages_fts;
  CREATE VIRTUAL TABLE passages_fts USING fts5 (terms, content = '', contentless_delete = 1);
  INSERT INTO passages_fts (rowid, terms)
    SELECT p.seq, ${OWNED_TERMS_FUNCTION}(a.seq, p.text)
    FROM passages AS p JOIN agents AS a ON a.id = p.agent_id;
  CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
    DELETE FROM passages_fts WHERE rowid = old.seq;
  END;

  DROP TRIGGER messages_fts_delete;
  DROP TABLE messages_fts;
  CREATE VIRTUAL TABLE messages_fts USING fts5 (terms, content = '', contentless_delete = 1);
  INSERT INTO messages_fts (rowid, terms)
    SELECT m.seq, ${OWNED_TERMS_FUNCTION}(a.seq, m.search_text)
    FROM messages AS m JOIN agents AS a ON a.id = m.agent_id
    WHERE m.search_text IS NOT NULL;
  CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
  WHEN old.search_text IS NOT NULL BEGIN
    DELETE FROM messages_fts WHERE rowid = old.seq;
  END;
  `,
  // 6: MCP servers added through the API, reconnected at start-up, listed in the order added.
  `
  CREATE TABLE mcp_servers (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    body TEXT NOT NULL
  ) STRICT;
  `,
  // 7: conversation search shows what was said (issue 13). A send_message call is indexed by
  // its `message` argument, not its JSON; the returns of send_message ("sent") and of
  // conversation_search (earlier hits, which would nest) are not indexed at all.
  `
  DELETE FROM messages_fts WHERE rowid IN (
    SELECT seq FROM messages
    WHERE (message_type = 'tool_call_message'
        AND json_extract(body, '$.tool_call.name') = 'send_message')
      OR (message_type = 'tool_return_message'
        AND json_extract(body, '$.name') IN ('send_message', 'conversation_search'))
  );
  UPDATE messages SET search_role = NULL, search_text = NULL
    WHERE message_type = 'tool_return_message'
      AND json_extract(body, '$.name') IN ('send_message', 'conversation_search');
  UPDATE messages SET search_text = CASE
      WHEN json_valid(json_extract(body, '$.tool_call.arguments')) THEN CASE
        WHEN json_type(json_extract(body, '$.tool_call.arguments'), '$.message') = 'text'
        THEN json_extract(json_extract(body, '$.tool_call.arguments'), '$.message') END
      END
    WHERE message_type = 'tool_call_message'
      AND json_extract(body, '$.tool_call.name') = 'send_message';
  UPDATE messages SET search_role = NULL
    WHERE message_type = 'tool_call_message' AND search_text IS NULL;
  INSERT INTO messages_fts (rowid, terms)
    SELECT m.seq, ${OWNED_TERMS_FUNCTION}(a.seq, m.search_text)
    FROM messages AS m JOIN agents AS a ON a.id = m.agent_id
    WHERE m.message_type = 'tool_call_message' AND m.search_text IS NOT NULL;
  `,
  // 8: vectors of passages and messages for hybrid search (`vectors.ts`, decision 016), one
  // per row, tagged with the embedding model that made it; little-endian float32 blobs, the
  // format sqlite-vec's functions read. Deleting a row (or its agent, which cascades) deletes
  // its vector.
  `
  CREATE TABLE passage_vectors (
    row_seq INTEGER PRIMARY KEY REFERENCES passages (seq) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
  ) STRICT;
  CREATE INDEX passage_vectors_by_agent ON passage_vectors (agent_id, model);
  CREATE TABLE message_vectors (
    row_seq INTEGER PRIMARY KEY REFERENCES messages (seq) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
  ) STRICT;
  CREATE INDEX message_vectors_by_agent ON message_vectors (agent_id, model);
  `,
  // 9: step records (one model call and its tool calls), written with the step's checkpoint.
  // `seq` is creation order; upserts keep it. Lists go by project (through agents), agent or run.
  `
  CREATE TABLE steps (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    run_id TEXT,
    model TEXT NOT NULL,
    created_at_ms REAL NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX steps_by_agent ON steps (agent_id, seq);
  CREATE INDEX steps_by_run ON steps (run_id, seq) WHERE run_id IS NOT NULL;
  `,
  // 10: replay and fork (decision 020). The run journal: what the loop decided at each step and
  // what it was given, one row per entry, read by run. Memory history: every block and passage
  // change with its place among the agent's messages (\`records/memory-history.ts\`). Agents
  // stored before it get a baseline: their blocks now, after their messages so far, and their
  // history begins there.
  `
  CREATE TABLE run_journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX run_journal_by_run ON run_journal (run_id, seq);
  CREATE TABLE memory_history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX memory_history_by_agent ON memory_history (agent_id, seq);
  INSERT INTO memory_history (agent_id, position, body)
    SELECT a.id, 2 * (SELECT count(*) FROM messages AS m WHERE m.agent_id = a.id) + 1,
      '{"kind":"baseline"}'
    FROM agents AS a ORDER BY a.seq;
  INSERT INTO memory_history (agent_id, position, body)
    SELECT b.agent_id, 2 * (SELECT count(*) FROM messages AS m WHERE m.agent_id = b.agent_id) + 1,
      json_object('kind', 'block', 'block', json(b.body))
    FROM blocks AS b ORDER BY b.rowid;
  `,
  ...ENTITY_MIGRATIONS,
];

/**
 * Brings the database to the latest schema version in one transaction: an upgrade lands whole
 * or not at all, and a new database pays for one commit (one flush) rather than one per
 * migration (24 → 11 ms to create the schema here). Running it again does nothing; a database
 * written by a newer Holdfast (a version we do not know) is refused rather than guessed at.
 */
export function migrate(db: DatabaseSync, migrations: readonly string[] = MIGRATIONS): number {
  registerOwnedTerms(db);
  const current = (): number => {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'");
    if (table.get() === undefined) return 0;
    const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get();
    return typeof row?.version === "number" ? row.version : 0;
  };
  const refuseNewer = (found: number) => {
    if (found > migrations.length) {
      throw new Error(
        `the database has schema version ${found}; this Holdfast knows up to ${migrations.length}`,
      );
    }
  };
  const found = current();
  refuseNewer(found);
  if (found === migrations.length) return found;
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY) STRICT");
    // Another process may have migrated between our read and our lock.
    const locked = current();
    refuseNewer(locked);
    const record = db.prepare("INSERT INTO schema_migrations (version) VALUES (?)");
    for (let version = locked + 1; version <= migrations.length; version++) {
      db.exec(migrations[version - 1] ?? "");
      record.run(version);
    }
    db.exec("COMMIT");
  } catch (error) {
    // SQLite rolls back by itself on some errors (a full disk, an I/O error); a ROLLBACK then
    // would fail and hide the error that matters.
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
  return migrations.length;
}
