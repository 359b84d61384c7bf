/**
 * Migrations 11 and later of the SQLite schema (`migrations.ts` lists them after the first
 * ten): Letta's entities that stand apart from an agent's own rows.
 */
export const ENTITY_MIGRATIONS: readonly string[] = [
  // 11: blocks are entities of their own (Letta's `/v1/blocks`, decision 024): a block belongs
  // to a project and is attached to any number of its agents, which all read the one row. A
  // block made with an agent is owned by it (deleted with it unless another agent shares it);
  // one made through `/v1/blocks` has no owner. The agents' blocks so far become blocks they
  // own, attached in the same order.
  `
  CREATE TABLE core_blocks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    owner_id TEXT,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX core_blocks_by_project ON core_blocks (project_id, seq);
  CREATE INDEX core_blocks_by_owner ON core_blocks (owner_id) WHERE owner_id IS NOT NULL;
  CREATE TABLE agent_blocks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    block_id TEXT NOT NULL REFERENCES core_blocks (id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    UNIQUE (agent_id, label),
    UNIQUE (agent_id, block_id)
  ) STRICT;
  CREATE INDEX agent_blocks_by_block ON agent_blocks (block_id, seq);
  INSERT OR IGNORE INTO core_blocks (id, project_id, owner_id, body)
    SELECT b.block_id, a.project_id, b.agent_id, b.body
    FROM blocks AS b JOIN agents AS a ON a.id = b.agent_id ORDER BY b.rowid;
  INSERT OR IGNORE INTO agent_blocks (agent_id, block_id, label)
    SELECT agent_id, block_id, label FROM blocks ORDER BY rowid;
  DROP TABLE blocks;
  `,
  // 12: scheduled messages (decision 027): the record whole in `body`, its next firing time
  // as a column the timer loop reads; deleting the agent deletes them.
  `
  CREATE TABLE scheduled_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    next_at_ms REAL NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX scheduled_messages_by_agent ON scheduled_messages (agent_id, seq);
  CREATE INDEX scheduled_messages_by_due ON scheduled_messages (next_at_ms);
  `,
  // 13: conversations (decision 026): an agent's conversations, and the conversation of each
  // message (NULL: the agent's default conversation, as every message before had).
  `
  CREATE TABLE conversations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX conversations_by_agent ON conversations (agent_id, seq);
  ALTER TABLE messages ADD COLUMN conversation_id TEXT;
  CREATE INDEX messages_by_conversation ON messages (conversation_id, seq)
    WHERE conversation_id IS NOT NULL;
  `,
  // 14: folders and files (Letta's sources, decision 025). A file's text is kept whole beside
  // its record; its chunks are indexed for full text across folders (plain words, not marked by
  // agent: a search spans the folders an agent has). An agent's file rows hang off its folder
  // attachment, so detaching a folder, deleting it or deleting the agent drops them.
  `
  CREATE TABLE folders (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (project_id, name)
  ) STRICT;
  CREATE TABLE folder_files (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    folder_id TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    body TEXT NOT NULL,
    content TEXT NOT NULL
  ) STRICT;
  CREATE INDEX folder_files_by_folder ON folder_files (folder_id, seq);
  CREATE TABLE file_chunks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    file_id TEXT NOT NULL REFERENCES folder_files (id) ON DELETE CASCADE,
    folder_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL
  ) STRICT;
  CREATE INDEX file_chunks_by_file ON file_chunks (file_id);
  CREATE VIRTUAL TABLE file_chunks_fts USING fts5 (terms, content = '', contentless_delete = 1);
  CREATE TRIGGER file_chunks_fts_delete AFTER DELETE ON file_chunks BEGIN
    DELETE FROM file_chunks_fts WHERE rowid = old.seq;
  END;
  CREATE TABLE agent_folders (
    seq INTEGER PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    folder_id TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    UNIQUE (agent_id, folder_id)
  ) STRICT;
  CREATE INDEX agent_folders_by_folder ON agent_folders (folder_id, seq);
  CREATE TABLE agent_files (
    seq INTEGER PRIMARY KEY,
    agent_id TEXT NOT NULL,
    folder_id TEXT NOT NULL,
    file_id TEXT NOT NULL REFERENCES folder_files (id) ON DELETE CASCADE,
    body TEXT NOT NULL,
    UNIQUE (agent_id, file_id),
    FOREIGN KEY (agent_id, folder_id) REFERENCES agent_folders (agent_id, folder_id)
      ON DELETE CASCADE
  ) STRICT;
  CREATE INDEX agent_files_by_agent ON agent_files (agent_id, seq);
  `,
  // 15: vectors of file chunks (decision 025), as passage vectors are kept (migration 8):
  // float32 blobs tagged with their model, deleted with their chunk.
  `
  CREATE TABLE file_chunk_vectors (
    row_seq INTEGER PRIMARY KEY REFERENCES file_chunks (seq) ON DELETE CASCADE,
    folder_id TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
  ) STRICT;
  CREATE INDEX file_chunk_vectors_by_folder ON file_chunk_vectors (folder_id, model);
  `,
  // 16: archives (decision 028): records whole in `body`; their passages indexed for full text
  // as each archive's own terms (`full-text.ts`, keyed by the archive's seq, so a search reads
  // only its archives' postings); attachments to agents, dropped with either side.
  `
  CREATE TABLE archives (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX archives_by_project ON archives (project_id, seq);
  CREATE TABLE archive_passages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    archive_id TEXT NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    tags TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at_ms REAL NOT NULL
  ) STRICT;
  CREATE INDEX archive_passages_by_archive ON archive_passages (archive_id, seq);
  CREATE VIRTUAL TABLE archive_passages_fts USING fts5 (terms, content = '', contentless_delete = 1);
  CREATE TRIGGER archive_passages_fts_delete AFTER DELETE ON archive_passages BEGIN
    DELETE FROM archive_passages_fts WHERE rowid = old.seq;
  END;
  CREATE TABLE agent_archives (
    seq INTEGER PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    archive_id TEXT NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    UNIQUE (agent_id, archive_id)
  ) STRICT;
  CREATE INDEX agent_archives_by_archive ON agent_archives (archive_id, seq);
  `,
];
