import type pg from "pg";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { AgentFileState, FileChunk, FileRecord, FolderRecord } from "../../records/folder.js";
import type { ChunkHit, FolderStore } from "../folder-store.js";
import { parseInput } from "../store-rows.js";
import { cosineDistance } from "../vector-math.js";
import type { EmbeddingTarget, RowVector } from "../vector-store.js";
import { anyOf, ownedQueryTerms, ownedVector } from "./full-text.js";
import { inTransaction, type Tx } from "./pool.js";
import { bodies, body, type Row, text } from "./rows.js";

/** Chunks' terms belong to no agent: key 0, which no agent has (keys start at 1). */
const CHUNK_KEY = 0;

const SEARCH_CHUNKS = `SELECT c.id, c.file_id, c.folder_id, c.text FROM file_chunks AS c
  WHERE c.terms @@ $1::tsquery AND c.folder_id = ANY ($2)
  ORDER BY ts_rank(c.terms, $1::tsquery, 1) DESC, c.seq LIMIT $3`;

const UNEMBEDDED_CHUNKS = `SELECT c.seq AS position, c.id, c.text FROM file_chunks AS c
  LEFT JOIN file_chunk_vectors AS v ON v.row_seq = c.seq AND v.model = $2
  WHERE c.folder_id = $1 AND c.seq > $3 AND v.row_seq IS NULL ORDER BY c.seq LIMIT $4`;
const PUT_CHUNK_VECTOR = `INSERT INTO file_chunk_vectors (row_seq, folder_id, model, vector)
  SELECT seq, folder_id, $3, $4 FROM file_chunks WHERE id = $1 AND folder_id = $2
  ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`;
const CHUNK_CANDIDATES = `SELECT c.seq, c.id, c.file_id, c.folder_id, c.text, v.vector
  FROM file_chunk_vectors AS v JOIN file_chunks AS c ON c.seq = v.row_seq
  WHERE v.model = $1 AND v.folder_id = ANY ($2)`;

/**
 * Folders in PostgreSQL, as SQLite keeps them: records whole in `body`, creation order by
 * `seq`, and the schema's cascades doing the deleting. A folder name taken in the project is
 * refused by the unique index, so two creations of one name cannot both win.
 */
export class PostgresFolders implements FolderStore {
  constructor(private readonly pool: pg.Pool) {}

  private async rows(sql: string, params: unknown[]): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows;
  }

  private tx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (tx) => work(tx));
  }

  async putFolder(folder: FolderRecord): Promise<void> {
    const parsed = parseInput(FolderRecord, folder, ["folder"]);
    try {
      await this.tx((tx) =>
        tx.query(
          `INSERT INTO folders (id, project_id, name, body) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET name = excluded.name, body = excluded.body`,
          [parsed.id, parsed.project_id, parsed.name, JSON.stringify(parsed)],
        ),
      );
    } catch (error) {
      if (error instanceof ConflictError) {
        throw new ConflictError(`a folder named '${parsed.name}' exists`);
      }
      throw error;
    }
  }

  async getFolder(id: string): Promise<FolderRecord | null> {
    const found = await this.rows("SELECT body FROM folders WHERE id = $1", [id]);
    return body(found[0], FolderRecord, "folder");
  }

  async listFolders(projectId: string): Promise<FolderRecord[]> {
    const found = await this.rows("SELECT body FROM folders WHERE project_id = $1 ORDER BY seq", [
      projectId,
    ]);
    return bodies(found, FolderRecord, "folder");
  }

  async deleteFolder(id: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const result = await tx.query("DELETE FROM folders WHERE id = $1", [id]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  async addFile(file: FileRecord, content: string, chunks: readonly FileChunk[]): Promise<void> {
    const record = parseInput(FileRecord, file, ["file"]);
    const parsed = chunks.map((chunk, i) => parseInput(FileChunk, chunk, ["chunks", i]));
    await this.tx(async (tx) => {
      const folder = await tx.query("SELECT 1 FROM folders WHERE id = $1", [record.folder_id]);
      if (folder.rowCount === 0) throw new NotFoundError("folder", record.folder_id);
      await tx.query(
        "INSERT INTO folder_files (id, folder_id, body, content) VALUES ($1, $2, $3, $4)",
        [record.id, record.folder_id, JSON.stringify(record), content],
      );
      for (const chunk of parsed) {
        await tx.query(
          `INSERT INTO file_chunks (id, file_id, folder_id, position, text, terms)
           VALUES ($1, $2, $3, $4, $5, $6::tsvector)`,
          [
            chunk.id,
            record.id,
            record.folder_id,
            chunk.position,
            chunk.text,
            ownedVector(CHUNK_KEY, chunk.text),
          ],
        );
      }
    });
  }

  async getFile(id: string): Promise<FileRecord | null> {
    const found = await this.rows("SELECT body FROM folder_files WHERE id = $1", [id]);
    return body(found[0], FileRecord, "file");
  }

  async getFileContent(id: string): Promise<string | null> {
    const found = await this.rows("SELECT content FROM folder_files WHERE id = $1", [id]);
    return found[0] ? text(found[0], "content") : null;
  }

  async listFiles(folderId: string): Promise<FileRecord[]> {
    const found = await this.rows(
      "SELECT body FROM folder_files WHERE folder_id = $1 ORDER BY seq",
      [folderId],
    );
    return bodies(found, FileRecord, "file");
  }

  async deleteFile(id: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const result = await tx.query("DELETE FROM folder_files WHERE id = $1", [id]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  async searchChunks(
    folderIds: readonly string[],
    query: string,
    limit: number,
  ): Promise<ChunkHit[]> {
    const terms = ownedQueryTerms(CHUNK_KEY, query);
    const top = Math.floor(limit);
    if (terms.length === 0 || folderIds.length === 0 || !(top > 0)) return [];
    const found = await this.rows(SEARCH_CHUNKS, [anyOf(terms), [...folderIds], top]);
    return found.map((row) => ({
      id: text(row, "id"),
      file_id: text(row, "file_id"),
      folder_id: text(row, "folder_id"),
      text: text(row, "text"),
    }));
  }

  async unembeddedChunks(
    folderId: string,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    const top = Math.floor(limit);
    if (!(top > 0)) return [];
    const found = await this.rows(UNEMBEDDED_CHUNKS, [folderId, model, after, top]);
    return found.map((row) => ({
      id: text(row, "id"),
      text: text(row, "text"),
      position: Number(row.position),
    }));
  }

  async putChunkVectors(
    folderId: string,
    model: string,
    vectors: readonly RowVector[],
  ): Promise<number> {
    return this.tx(async (tx) => {
      let stored = 0;
      for (const { id, vector } of vectors) {
        const result = await tx.query(PUT_CHUNK_VECTOR, [id, folderId, model, [...vector]]);
        stored += result.rowCount ?? 0;
      }
      return stored;
    });
  }

  async foldersWithChunks(): Promise<string[]> {
    const found = await this.rows(
      `SELECT f.id FROM folders AS f
       WHERE EXISTS (SELECT 1 FROM file_chunks AS c WHERE c.folder_id = f.id) ORDER BY f.seq`,
      [],
    );
    return found.map((row) => text(row, "id"));
  }

  async nearestChunks(
    folderIds: readonly string[],
    model: string,
    vector: Float32Array,
    limit: number,
  ): Promise<ChunkHit[]> {
    const top = Math.floor(limit);
    if (folderIds.length === 0 || !(top > 0)) return [];
    const found = await this.rows(CHUNK_CANDIDATES, [model, [...folderIds]]);
    return found
      .map((row) => ({
        row,
        seq: Number(row.seq),
        distance: cosineDistance(new Float32Array(row.vector as number[]), vector),
      }))
      .sort((a, b) => a.distance - b.distance || a.seq - b.seq)
      .slice(0, top)
      .map(({ row }) => ({
        id: text(row, "id"),
        file_id: text(row, "file_id"),
        folder_id: text(row, "folder_id"),
        text: text(row, "text"),
      }));
  }

  async attachFolder(
    agentId: string,
    folderId: string,
    files: readonly AgentFileState[],
  ): Promise<void> {
    const rows = files.map((row, i) => parseInput(AgentFileState, row, ["files", i]));
    await this.tx(async (tx) => {
      await requireAgent(tx, agentId);
      const folder = await tx.query("SELECT 1 FROM folders WHERE id = $1", [folderId]);
      if (folder.rowCount === 0) throw new NotFoundError("folder", folderId);
      await tx.query(
        `INSERT INTO agent_folders (agent_id, folder_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [agentId, folderId],
      );
      await tx.query("DELETE FROM agent_files WHERE agent_id = $1 AND folder_id = $2", [
        agentId,
        folderId,
      ]);
      await putRows(tx, agentId, rows);
    });
  }

  async detachFolder(agentId: string, folderId: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const result = await tx.query(
        "DELETE FROM agent_folders WHERE agent_id = $1 AND folder_id = $2",
        [agentId, folderId],
      );
      return (result.rowCount ?? 0) > 0;
    });
  }

  async agentFolders(agentId: string): Promise<string[]> {
    const found = await this.rows(
      "SELECT folder_id FROM agent_folders WHERE agent_id = $1 ORDER BY seq",
      [agentId],
    );
    return found.map((row) => text(row, "folder_id"));
  }

  async folderAgents(folderId: string): Promise<string[]> {
    const found = await this.rows(
      "SELECT agent_id FROM agent_folders WHERE folder_id = $1 ORDER BY seq",
      [folderId],
    );
    return found.map((row) => text(row, "agent_id"));
  }

  async agentFiles(agentId: string): Promise<AgentFileState[]> {
    const found = await this.rows("SELECT body FROM agent_files WHERE agent_id = $1 ORDER BY seq", [
      agentId,
    ]);
    return bodies(found, AgentFileState, "agent file");
  }

  async putAgentFiles(agentId: string, files: readonly AgentFileState[]): Promise<void> {
    const rows = files.map((row, i) => parseInput(AgentFileState, row, ["files", i]));
    await this.tx(async (tx) => {
      await requireAgent(tx, agentId);
      await putRows(tx, agentId, rows);
    });
  }
}

async function requireAgent(tx: Tx, agentId: string): Promise<void> {
  const agent = await tx.query("SELECT 1 FROM agents WHERE id = $1", [agentId]);
  if (agent.rowCount === 0) throw new NotFoundError("agent", agentId);
}

/** Writes rows whose file is in their folder and whose folder is attached to the agent. */
async function putRows(tx: Tx, agentId: string, rows: readonly AgentFileState[]): Promise<void> {
  for (const row of rows) {
    const { rows: found } = await tx.query(
      `SELECT f.folder_id, a.agent_id FROM folder_files AS f
       LEFT JOIN agent_folders AS a ON a.folder_id = f.folder_id AND a.agent_id = $2
       WHERE f.id = $1`,
      [row.file_id, agentId],
    );
    const file = found[0] as { folder_id?: string; agent_id?: string | null } | undefined;
    if (row.agent_id !== agentId || file?.folder_id !== row.folder_id) {
      throw new NotFoundError("file", row.file_id);
    }
    if (!file.agent_id) throw new NotFoundError("attached folder", row.folder_id);
    await tx.query(
      `INSERT INTO agent_files (agent_id, folder_id, file_id, body) VALUES ($1, $2, $3, $4)
       ON CONFLICT (agent_id, file_id) DO UPDATE SET body = excluded.body`,
      [agentId, row.folder_id, row.file_id, JSON.stringify(row)],
    );
  }
}
