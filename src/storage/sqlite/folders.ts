import type { DatabaseSync } from "node:sqlite";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { AgentFileState, FileChunk, FileRecord, FolderRecord } from "../../records/folder.js";
import { tokenize } from "../bm25.js";
import type { ChunkHit, FolderStore } from "../folder-store.js";
import { parseInput } from "../store-rows.js";
import { vectorBytes } from "../vector-math.js";
import type { EmbeddingTarget, RowVector } from "../vector-store.js";
import { PreparedStatements } from "./prepared.js";
import { bodies, body, changed, text } from "./rows.js";

const SQL = {
  putFolder: `INSERT INTO folders (id, project_id, name, body) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, body = excluded.body`,
  folderNamed: "SELECT id FROM folders WHERE project_id = ? AND name = ? AND id <> ?",
  getFolder: "SELECT body FROM folders WHERE id = ?",
  listFolders: "SELECT body FROM folders WHERE project_id = ? ORDER BY seq",
  deleteFolder: "DELETE FROM folders WHERE id = ?",
  insertFile: "INSERT INTO folder_files (id, folder_id, body, content) VALUES (?, ?, ?, ?)",
  insertChunk: `INSERT INTO file_chunks (id, file_id, folder_id, position, text)
    VALUES (?, ?, ?, ?, ?) RETURNING seq`,
  indexChunk: "INSERT INTO file_chunks_fts (rowid, terms) VALUES (?, ?)",
  getFile: "SELECT body FROM folder_files WHERE id = ?",
  getFileContent: "SELECT content FROM folder_files WHERE id = ?",
  listFiles: "SELECT body FROM folder_files WHERE folder_id = ? ORDER BY seq",
  deleteFile: "DELETE FROM folder_files WHERE id = ?",
  searchChunks: `SELECT c.id, c.file_id, c.folder_id, c.text FROM file_chunks_fts AS f
    JOIN file_chunks AS c ON c.seq = f.rowid
    WHERE file_chunks_fts MATCH ? AND c.folder_id IN (SELECT value FROM json_each(?))
    ORDER BY bm25(file_chunks_fts), c.seq LIMIT ?`,
  agentExists: "SELECT 1 AS found FROM agents WHERE id = ?",
  folderExists: "SELECT 1 AS found FROM folders WHERE id = ?",
  attach: "INSERT INTO agent_folders (agent_id, folder_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
  detach: "DELETE FROM agent_folders WHERE agent_id = ? AND folder_id = ?",
  dropFolderRows: "DELETE FROM agent_files WHERE agent_id = ? AND folder_id = ?",
  agentFolders: "SELECT folder_id FROM agent_folders WHERE agent_id = ? ORDER BY seq",
  folderAgents: "SELECT agent_id FROM agent_folders WHERE folder_id = ? ORDER BY seq",
  agentFiles: "SELECT body FROM agent_files WHERE agent_id = ? ORDER BY seq",
  fileFolder: "SELECT folder_id FROM folder_files WHERE id = ?",
  putAgentFile: `INSERT INTO agent_files (agent_id, folder_id, file_id, body) VALUES (?, ?, ?, ?)
    ON CONFLICT (agent_id, file_id) DO UPDATE SET body = excluded.body`,
  unembeddedChunks: `SELECT c.seq AS position, c.id, c.text FROM file_chunks AS c
    LEFT JOIN file_chunk_vectors AS v ON v.row_seq = c.seq AND v.model = ?2
    WHERE c.folder_id = ?1 AND c.seq > ?3 AND v.row_seq IS NULL ORDER BY c.seq LIMIT ?4`,
  putChunkVector: `INSERT INTO file_chunk_vectors (row_seq, folder_id, model, vector)
    SELECT seq, folder_id, ?3, ?4 FROM file_chunks WHERE id = ?1 AND folder_id = ?2
    ON CONFLICT (row_seq) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  foldersWithChunks: `SELECT f.id FROM folders AS f
    WHERE EXISTS (SELECT 1 FROM file_chunks AS c WHERE c.folder_id = f.id) ORDER BY f.seq`,
  nearestChunks: `SELECT c.id, c.file_id, c.folder_id, c.text FROM file_chunk_vectors AS v
    JOIN file_chunks AS c ON c.seq = v.row_seq
    WHERE v.model = ?1 AND v.folder_id IN (SELECT value FROM json_each(?2))
    ORDER BY vec_distance_cosine(v.vector, ?3), c.seq LIMIT ?4`,
} as const;

const SQLITE_CONSTRAINT_FOREIGNKEY = 787;

/**
 * Folders in SQLite (migration 14): records whole in `body`, creation order by `seq`, and the
 * cascades of the schema doing the deleting. Each write is one synchronous transaction.
 */
export class SqliteFolders implements FolderStore {
  private readonly sql: PreparedStatements<keyof typeof SQL>;

  constructor(db: DatabaseSync) {
    this.sql = new PreparedStatements(db, SQL);
  }

  async putFolder(folder: FolderRecord): Promise<void> {
    const parsed = parseInput(FolderRecord, folder, ["folder"]);
    this.sql.write(() => {
      if (this.sql.get("folderNamed", parsed.project_id, parsed.name, parsed.id)) {
        throw new ConflictError(`a folder named '${parsed.name}' exists`);
      }
      const json = JSON.stringify(parsed);
      this.sql.run("putFolder", parsed.id, parsed.project_id, parsed.name, json);
    });
  }

  async getFolder(id: string): Promise<FolderRecord | null> {
    return body(this.sql.get("getFolder", id), FolderRecord, "folder");
  }

  async listFolders(projectId: string): Promise<FolderRecord[]> {
    return bodies(this.sql.all("listFolders", projectId), FolderRecord, "folder");
  }

  async deleteFolder(id: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("deleteFolder", id)));
  }

  async addFile(file: FileRecord, content: string, chunks: readonly FileChunk[]): Promise<void> {
    const record = parseInput(FileRecord, file, ["file"]);
    const parsed = chunks.map((chunk, i) => parseInput(FileChunk, chunk, ["chunks", i]));
    this.sql.write(() => {
      if (!this.sql.get("folderExists", record.folder_id)) {
        throw new NotFoundError("folder", record.folder_id);
      }
      this.sql.run("insertFile", record.id, record.folder_id, JSON.stringify(record), content);
      for (const chunk of parsed) {
        const row = this.sql.get(
          "insertChunk",
          chunk.id,
          record.id,
          record.folder_id,
          chunk.position,
          chunk.text,
        );
        this.sql.run("indexChunk", Number(row?.seq), tokenize(chunk.text).join(" "));
      }
    });
  }

  async getFile(id: string): Promise<FileRecord | null> {
    return body(this.sql.get("getFile", id), FileRecord, "file");
  }

  async getFileContent(id: string): Promise<string | null> {
    const row = this.sql.get("getFileContent", id);
    return row ? text(row, "content") : null;
  }

  async listFiles(folderId: string): Promise<FileRecord[]> {
    return bodies(this.sql.all("listFiles", folderId), FileRecord, "file");
  }

  async deleteFile(id: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("deleteFile", id)));
  }

  async searchChunks(
    folderIds: readonly string[],
    query: string,
    limit: number,
  ): Promise<ChunkHit[]> {
    const words = [...new Set(tokenize(query))];
    const top = Math.floor(limit);
    if (words.length === 0 || folderIds.length === 0 || !(top > 0)) return [];
    const match = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" OR ");
    return this.sql.all("searchChunks", match, JSON.stringify(folderIds), top).map((row) => ({
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
    this.sql.write(() => {
      if (!this.sql.get("agentExists", agentId)) throw new NotFoundError("agent", agentId);
      if (!this.sql.get("folderExists", folderId)) throw new NotFoundError("folder", folderId);
      this.sql.run("attach", agentId, folderId);
      this.sql.run("dropFolderRows", agentId, folderId);
      this.putRows(agentId, rows);
    });
  }

  async detachFolder(agentId: string, folderId: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("detach", agentId, folderId)));
  }

  async agentFolders(agentId: string): Promise<string[]> {
    return this.sql.all("agentFolders", agentId).map((row) => text(row, "folder_id"));
  }

  async folderAgents(folderId: string): Promise<string[]> {
    return this.sql.all("folderAgents", folderId).map((row) => text(row, "agent_id"));
  }

  async agentFiles(agentId: string): Promise<AgentFileState[]> {
    return bodies(this.sql.all("agentFiles", agentId), AgentFileState, "agent file");
  }

  async putAgentFiles(agentId: string, files: readonly AgentFileState[]): Promise<void> {
    const rows = files.map((row, i) => parseInput(AgentFileState, row, ["files", i]));
    this.sql.write(() => {
      if (!this.sql.get("agentExists", agentId)) throw new NotFoundError("agent", agentId);
      this.putRows(agentId, rows);
    });
  }

  async unembeddedChunks(
    folderId: string,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    const top = Math.floor(limit);
    if (!(top > 0)) return [];
    return this.sql.all("unembeddedChunks", folderId, model, after, top).map((row) => ({
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
    return this.sql.write(() => {
      let stored = 0;
      for (const { id, vector } of vectors) {
        const put = this.sql.statement("putChunkVector");
        if (changed(put.run(id, folderId, model, vectorBytes(vector)))) stored += 1;
      }
      return stored;
    });
  }

  async foldersWithChunks(): Promise<string[]> {
    return this.sql.all("foldersWithChunks").map((row) => text(row, "id"));
  }

  async nearestChunks(
    folderIds: readonly string[],
    model: string,
    vector: Float32Array,
    limit: number,
  ): Promise<ChunkHit[]> {
    const top = Math.floor(limit);
    if (folderIds.length === 0 || !(top > 0)) return [];
    const rows = this.sql
      .statement("nearestChunks")
      .all(model, JSON.stringify(folderIds), vectorBytes(vector), top);
    return rows.map((row) => ({
      id: text(row, "id"),
      file_id: text(row, "file_id"),
      folder_id: text(row, "folder_id"),
      text: text(row, "text"),
    }));
  }

  /** Writes rows whose file is in their folder; the attachment's foreign key checks the rest. */
  private putRows(agentId: string, rows: readonly AgentFileState[]): void {
    for (const row of rows) {
      const folder = this.sql.get("fileFolder", row.file_id)?.folder_id;
      if (row.agent_id !== agentId || folder !== row.folder_id) {
        throw new NotFoundError("file", row.file_id);
      }
      try {
        this.sql.run("putAgentFile", agentId, row.folder_id, row.file_id, JSON.stringify(row));
      } catch (error) {
        // The only foreign key left to fail: the folder is not attached to the agent.
        if ((error as { errcode?: unknown }).errcode === SQLITE_CONSTRAINT_FOREIGNKEY) {
          throw new NotFoundError("attached folder", row.folder_id);
        }
        throw error;
      }
    }
  }
}
