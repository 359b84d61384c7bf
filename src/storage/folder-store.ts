import type { AgentFileState, FileChunk, FileRecord, FolderRecord } from "../records/folder.js";
import type { EmbeddingTarget, RowVector } from "./vector-store.js";

/** A chunk found by full-text search, best first. */
export interface ChunkHit {
  id: string;
  file_id: string;
  folder_id: string;
  text: string;
}

/**
 * Folders, their files and chunks, and which agents have them (Letta's sources and
 * `files_agents`). Lists are whole and in creation (or attach) order; the service pages them.
 *
 * Writes are all or nothing and reject with `ValidationError` for a row that does not parse,
 * `NotFoundError` for a folder, file or agent that does not exist, `ConflictError` for a taken
 * id or a folder name the project already has. Deleting a folder deletes its files, their
 * chunks and every agent's attachment and file rows; deleting a file deletes its chunks and
 * agent rows; deleting an agent deletes its attachments and file rows.
 */
export interface FolderStore {
  /** Inserts the folder, or replaces the one with its id (keeping its place). */
  putFolder(folder: FolderRecord): Promise<void>;
  getFolder(id: string): Promise<FolderRecord | null>;
  listFolders(projectId: string): Promise<FolderRecord[]>;
  deleteFolder(id: string): Promise<boolean>;

  /** Stores a file with its text and chunks, in its folder. */
  addFile(file: FileRecord, content: string, chunks: readonly FileChunk[]): Promise<void>;
  getFile(id: string): Promise<FileRecord | null>;
  getFileContent(id: string): Promise<string | null>;
  listFiles(folderId: string): Promise<FileRecord[]>;
  deleteFile(id: string): Promise<boolean>;
  /**
   * Chunks of these folders' files holding any of the query's words, ranked by BM25 (ties in
   * creation order), at most `limit`.
   */
  searchChunks(folderIds: readonly string[], query: string, limit: number): Promise<ChunkHit[]>;

  /**
   * Attaches the folder to the agent with these file rows (its files as the agent sees them);
   * attaching again replaces the rows of that folder and keeps the attachment's place.
   */
  attachFolder(agentId: string, folderId: string, files: readonly AgentFileState[]): Promise<void>;
  /** Detaches it and drops the agent's rows of its files; false if it was not attached. */
  detachFolder(agentId: string, folderId: string): Promise<boolean>;
  /** Ids of the folders attached to the agent, in attach order. */
  agentFolders(agentId: string): Promise<string[]>;
  /** Ids of the agents the folder is attached to, in attach order. */
  folderAgents(folderId: string): Promise<string[]>;
  /** The agent's file rows, in the order they were added. */
  agentFiles(agentId: string): Promise<AgentFileState[]>;
  /**
   * Writes these rows of the agent (inserted, or replacing the row of the same file in its
   * place). Each file's folder must be attached to the agent.
   */
  putAgentFiles(agentId: string, files: readonly AgentFileState[]): Promise<void>;

  /**
   * Up to `limit` chunks of the folder after position `after` (0 for the start) without a
   * vector of `model`, in creation order: what the folder's embedding still has to do.
   */
  unembeddedChunks(
    folderId: string,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]>;
  /** Stores chunk vectors made by `model`; chunks deleted meanwhile are skipped. */
  putChunkVectors(folderId: string, model: string, vectors: readonly RowVector[]): Promise<number>;
  /** Ids of every folder with chunks, in creation order: to look over at start-up. */
  foldersWithChunks(): Promise<string[]>;
  /** The chunks of these folders with a vector of `model` nearest to `vector` (cosine). */
  nearestChunks(
    folderIds: readonly string[],
    model: string,
    vector: Float32Array,
    limit: number,
  ): Promise<ChunkHit[]>;
}
