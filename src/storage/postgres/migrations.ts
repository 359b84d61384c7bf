import type { PoolClient } from "pg";

/**
 * The PostgreSQL schema, as an ordered list of migrations: migration `i` brings the schema to
 * version `i + 1`. Never edit a released migration; append a new one. This is PostgreSQL's own
 * schema, not SQLite's: JSONB bodies, identity columns for creation order, and `tsvector`
 * columns with GIN indexes for full-text search.
 *
 * Rows are per agent, per block, per message and per passage. Each row's search terms are its
 * words as terms of its agent (`full-text.ts`), so a GIN posting list holds one agent's rows
 * and a search never walks another agent's (decision 010, the same as SQLite).
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE agents (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    project_id text NOT NULL,
    parent_id text,
    body jsonb NOT NULL
  );
  CREATE INDEX agents_by_project ON agents (project_id, seq);
  CREATE INDEX agents_by_parent ON agents (parent_id, seq) WHERE parent_id IS NOT NULL;

  CREATE TABLE blocks (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    label text NOT NULL,
    block_id text GENERATED ALWAYS AS (body ->> 'id') STORED,
    body jsonb NOT NULL,
    PRIMARY KEY (agent_id, label)
  );
  CREATE INDEX blocks_by_id ON blocks (block_id);

  CREATE TABLE messages (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    run_id text,
    message_type text NOT NULL,
    created_at text NOT NULL,
    search_role text,
    search_text text,
    search_terms tsvector,
    body jsonb NOT NULL
  );
  CREATE INDEX messages_by_agent ON messages (agent_id, seq);
  CREATE INDEX messages_terms ON messages USING gin (search_terms);

  CREATE TABLE passages (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    text text NOT NULL,
    tags jsonb NOT NULL,
    created_at_ms double precision NOT NULL,
    terms tsvector NOT NULL
  );
  CREATE INDEX passages_by_agent ON passages (agent_id, seq);
  CREATE INDEX passages_terms ON passages USING gin (terms);

  CREATE TABLE sessions (
    agent_id text PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    version integer NOT NULL,
    phase text NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX sessions_interrupted ON sessions (agent_id)
  WHERE phase IN ('running', 'awaiting_children');

  CREATE TABLE runs (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    id text PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    idempotency_key text,
    first_seq bigint NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX runs_by_agent ON runs (agent_id, seq);
  CREATE UNIQUE INDEX runs_by_key ON runs (agent_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

  CREATE TABLE chain_runs (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    project_id text NOT NULL,
    chain text NOT NULL,
    status text NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX chain_runs_by_project ON chain_runs (project_id, seq);
  CREATE INDEX chain_runs_unfinished ON chain_runs (seq)
  WHERE status IN ('running', 'awaiting_approval');

  CREATE TABLE timers (
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    kind text NOT NULL,
    due_at_ms double precision NOT NULL,
    PRIMARY KEY (agent_id, kind)
  );
  CREATE INDEX timers_by_due ON timers (due_at_ms, agent_id, kind);

  CREATE TABLE mcp_servers (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    name text NOT NULL UNIQUE,
    body jsonb NOT NULL
  );
  `,
  // 2: what other work added to the Store since the first schema: step records (written with
  // the step), the run journal and memory history (replay and fork, decision 020; agents stored
  // before get a baseline of their blocks after their messages so far), and vectors for hybrid
  // search, kept as real[] with exact cosine distance computed by Holdfast (no pgvector here).
  `
  CREATE TABLE steps (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    run_id text,
    model text NOT NULL,
    created_at_ms double precision NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX steps_by_agent ON steps (agent_id, seq);
  CREATE INDEX steps_by_run ON steps (run_id, seq) WHERE run_id IS NOT NULL;

  CREATE TABLE run_journal (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id text NOT NULL,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    body jsonb NOT NULL
  );
  CREATE INDEX run_journal_by_run ON run_journal (run_id, seq);

  CREATE TABLE memory_history (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position bigint NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX memory_history_by_agent ON memory_history (agent_id, seq);
  INSERT INTO memory_history (agent_id, position, body)
    SELECT a.id, 2 * (SELECT count(*) FROM messages AS m WHERE m.agent_id = a.id) + 1,
      '{"kind":"baseline"}'::jsonb
    FROM agents AS a ORDER BY a.seq;
  INSERT INTO memory_history (agent_id, position, body)
    SELECT b.agent_id,
      2 * (SELECT count(*) FROM messages AS m WHERE m.agent_id = b.agent_id) + 1,
      jsonb_build_object('kind', 'block', 'block', b.body)
    FROM blocks AS b ORDER BY b.seq;

  CREATE TABLE passage_vectors (
    row_seq bigint PRIMARY KEY REFERENCES passages (seq) ON DELETE CASCADE,
    agent_id text NOT NULL,
    model text NOT NULL,
    vector real[] NOT NULL
  );
  CREATE INDEX passage_vectors_by_agent ON passage_vectors (agent_id, model);
  CREATE TABLE message_vectors (
    row_seq bigint PRIMARY KEY REFERENCES messages (seq) ON DELETE CASCADE,
    agent_id text NOT NULL,
    model text NOT NULL,
    vector real[] NOT NULL
  );
  CREATE INDEX message_vectors_by_agent ON message_vectors (agent_id, model);
  `,
  // 3: blocks are entities of their own (decision 024), as in SQLite's migration 11: a block
  // belongs to a project and is attached to any number of its agents, which all read one row;
  // a block made with an agent is owned by it and deleted with it unless another shares it.
  `
  CREATE TABLE core_blocks (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    project_id text NOT NULL,
    owner_id text,
    body jsonb NOT NULL
  );
  CREATE INDEX core_blocks_by_project ON core_blocks (project_id, seq);
  CREATE INDEX core_blocks_by_owner ON core_blocks (owner_id) WHERE owner_id IS NOT NULL;
  CREATE TABLE agent_blocks (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    block_id text NOT NULL REFERENCES core_blocks (id) ON DELETE CASCADE,
    label text NOT NULL,
    UNIQUE (agent_id, label),
    UNIQUE (agent_id, block_id)
  );
  CREATE INDEX agent_blocks_by_block ON agent_blocks (block_id, seq);
  INSERT INTO core_blocks (id, project_id, owner_id, body)
    SELECT b.block_id, a.project_id, b.agent_id, b.body
    FROM blocks AS b JOIN agents AS a ON a.id = b.agent_id ORDER BY b.seq
    ON CONFLICT (id) DO NOTHING;
  INSERT INTO agent_blocks (agent_id, block_id, label)
    SELECT agent_id, block_id, label FROM blocks ORDER BY seq
    ON CONFLICT DO NOTHING;
  DROP TABLE blocks;
  `,
  // 4: scheduled messages (decision 027): the record whole in `body`, its next firing time
  // as a column the timer loop reads; deleting the agent deletes them.
  `
  CREATE TABLE scheduled_messages (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    next_at_ms double precision NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX scheduled_messages_by_agent ON scheduled_messages (agent_id, seq);
  CREATE INDEX scheduled_messages_by_due ON scheduled_messages (next_at_ms);
  `,
  // 5: conversations (decision 026): an agent's conversations, and the conversation of each
  // message, read from its body (NULL: the agent's default conversation).
  `
  CREATE TABLE conversations (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    body jsonb NOT NULL
  );
  CREATE INDEX conversations_by_agent ON conversations (agent_id, seq);
  ALTER TABLE messages ADD COLUMN conversation_id text
    GENERATED ALWAYS AS (body ->> 'conversation_id') STORED;
  CREATE INDEX messages_by_conversation ON messages (conversation_id, seq)
    WHERE conversation_id IS NOT NULL;
  `,
  // 6: folders and files (Letta's sources, decision 025), as SQLite's migration 14: a file's text
  // beside its record, chunks with search terms of key 0 (no agent's: a search spans the
  // folders an agent has), and an agent's file rows hanging off its folder attachment.
  `
  CREATE TABLE folders (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    project_id text NOT NULL,
    name text NOT NULL,
    body jsonb NOT NULL,
    UNIQUE (project_id, name)
  );
  CREATE TABLE folder_files (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    folder_id text NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    body jsonb NOT NULL,
    content text NOT NULL
  );
  CREATE INDEX folder_files_by_folder ON folder_files (folder_id, seq);
  CREATE TABLE file_chunks (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    file_id text NOT NULL REFERENCES folder_files (id) ON DELETE CASCADE,
    folder_id text NOT NULL,
    position integer NOT NULL,
    text text NOT NULL,
    terms tsvector NOT NULL
  );
  CREATE INDEX file_chunks_by_file ON file_chunks (file_id);
  CREATE INDEX file_chunks_terms ON file_chunks USING gin (terms);
  CREATE TABLE agent_folders (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    folder_id text NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    UNIQUE (agent_id, folder_id)
  );
  CREATE INDEX agent_folders_by_folder ON agent_folders (folder_id, seq);
  CREATE TABLE agent_files (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id text NOT NULL,
    folder_id text NOT NULL,
    file_id text NOT NULL REFERENCES folder_files (id) ON DELETE CASCADE,
    body jsonb NOT NULL,
    UNIQUE (agent_id, file_id),
    FOREIGN KEY (agent_id, folder_id) REFERENCES agent_folders (agent_id, folder_id)
      ON DELETE CASCADE
  );
  CREATE INDEX agent_files_by_agent ON agent_files (agent_id, seq);
  `,
  // 7: vectors of file chunks (decision 025), as passage vectors: one per chunk, tagged with its
  // model, deleted with the chunk; nearest by exact cosine computed in JavaScript.
  `
  CREATE TABLE file_chunk_vectors (
    row_seq bigint PRIMARY KEY REFERENCES file_chunks (seq) ON DELETE CASCADE,
    folder_id text NOT NULL,
    model text NOT NULL,
    vector real[] NOT NULL
  );
  CREATE INDEX file_chunk_vectors_by_folder ON file_chunk_vectors (folder_id, model);
  `,
  // 8: archives (decision 028), as SQLite's migration 16: records whole in `body`; passages
  // with the archive's own terms (keyed by its seq, as an agent's passages by the agent's);
  // attachments to agents, dropped with either side.
  `
  CREATE TABLE archives (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    project_id text NOT NULL,
    body jsonb NOT NULL
  );
  CREATE INDEX archives_by_project ON archives (project_id, seq);
  CREATE TABLE archive_passages (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    archive_id text NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    text text NOT NULL,
    tags jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at_ms double precision NOT NULL,
    terms tsvector NOT NULL
  );
  CREATE INDEX archive_passages_by_archive ON archive_passages (archive_id, seq);
  CREATE INDEX archive_passages_terms ON archive_passages USING gin (terms);
  CREATE TABLE agent_archives (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    archive_id text NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    UNIQUE (agent_id, archive_id)
  );
  CREATE INDEX agent_archives_by_archive ON agent_archives (archive_id, seq);
  `,
];

/** Serialises migrators of one schema: any number of servers may start at once. */
const MIGRATION_LOCK = "holdfast:migrate:";

/**
 * Brings the connection's schema (its `search_path`) to the latest version, one transaction per
 * migration, each under a transaction-scoped advisory lock so concurrent starters wait for one
 * another. Running it again does nothing; a schema written by a newer Holdfast is refused.
 */
export async function migrate(
  client: PoolClient,
  schema: string,
  migrations: readonly string[] = MIGRATIONS,
): Promise<number> {
  await locked(client, schema, async () => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY)",
    );
  });
  const current = async (): Promise<number> => {
    const { rows } = await client.query("SELECT max(version) AS version FROM schema_migrations");
    return Number(rows[0]?.version ?? 0);
  };
  const found = await current();
  if (found > migrations.length) {
    throw new Error(
      `the database has schema version ${found}; this Holdfast knows up to ${migrations.length}`,
    );
  }
  for (let version = found + 1; version <= migrations.length; version++) {
    await locked(client, schema, async () => {
      // Another server may have migrated between our read and our lock.
      if ((await current()) >= version) return;
      await client.query(migrations[version - 1] ?? "");
      await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version]);
    });
  }
  return migrations.length;
}

/** Runs `work` in a transaction holding the schema's migration lock. */
async function locked(client: PoolClient, schema: string, work: () => Promise<void>) {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [MIGRATION_LOCK + schema]);
    await work();
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
}

/** A schema name as SQL reads it, whatever characters it has. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
