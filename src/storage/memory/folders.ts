import { ConflictError, NotFoundError } from "../../core/errors.js";
import { AgentFileState, FileChunk, FileRecord, FolderRecord } from "../../records/folder.js";
import { rankBm25 } from "../bm25.js";
import type { ChunkHit, FolderStore } from "../folder-store.js";
import { parseInput } from "../store-rows.js";
import { cosineDistance } from "../vector-math.js";
import type { EmbeddingTarget, RowVector } from "../vector-store.js";
import { copy } from "./rows.js";

interface StoredFile {
  record: FileRecord;
  content: string;
  chunks: FileChunk[];
}

/** A chunk's vector, and its place in creation order. */
interface ChunkVector {
  model: string;
  vector: Float32Array;
}

/**
 * Folders in memory. Maps keep insertion order, which is creation (or attach) order; every
 * write is checked whole before anything changes. `agentExists` ties attachments to the
 * store's agents, whose deletion calls `forgetAgent`.
 */
export class InMemoryFolders implements FolderStore {
  private readonly folders = new Map<string, FolderRecord>();
  private readonly files = new Map<string, StoredFile>();
  /** Agent id → attached folder ids, in attach order. */
  private readonly attached = new Map<string, string[]>();
  /** Agent id → its file rows by file id, in the order added. */
  private readonly agentRows = new Map<string, Map<string, AgentFileState>>();
  /** Chunk id → its creation position (from 1) and vector. */
  private readonly positions = new Map<string, number>();
  private readonly vectors = new Map<string, ChunkVector>();

  constructor(private readonly agentExists: (agentId: string) => boolean) {}

  async putFolder(folder: FolderRecord): Promise<void> {
    const parsed = copy(parseInput(FolderRecord, folder, ["folder"]));
    const holder = [...this.folders.values()].find(
      (other) =>
        other.project_id === parsed.project_id &&
        other.name === parsed.name &&
        other.id !== parsed.id,
    );
    if (holder) throw new ConflictError(`a folder named '${parsed.name}' exists`);
    this.folders.set(parsed.id, parsed);
  }

  async getFolder(id: string): Promise<FolderRecord | null> {
    const folder = this.folders.get(id);
    return folder ? copy(folder) : null;
  }

  async listFolders(projectId: string): Promise<FolderRecord[]> {
    return [...this.folders.values()].filter((f) => f.project_id === projectId).map(copy);
  }

  async deleteFolder(id: string): Promise<boolean> {
    if (!this.folders.delete(id)) return false;
    for (const [fileId, file] of this.files) {
      if (file.record.folder_id !== id) continue;
      this.files.delete(fileId);
      for (const chunk of file.chunks) this.vectors.delete(chunk.id);
    }
    for (const agentId of this.attached.keys()) this.dropAttachment(agentId, id);
    return true;
  }

  async addFile(file: FileRecord, content: string, chunks: readonly FileChunk[]): Promise<void> {
    const record = copy(parseInput(FileRecord, file, ["file"]));
    const parsed = chunks.map((chunk, i) => copy(parseInput(FileChunk, chunk, ["chunks", i])));
    if (!this.folders.has(record.folder_id)) {
      throw new NotFoundError("folder", record.folder_id);
    }
    if (this.files.has(record.id)) throw new ConflictError(`file ${record.id} exists`);
    const taken = new Set([...this.files.values()].flatMap((f) => f.chunks.map((c) => c.id)));
    if (parsed.some((chunk) => taken.has(chunk.id))) throw new ConflictError("a chunk id is taken");
    this.files.set(record.id, { record, content, chunks: parsed });
    for (const chunk of parsed) this.positions.set(chunk.id, this.positions.size + 1);
  }

  async getFile(id: string): Promise<FileRecord | null> {
    const file = this.files.get(id);
    return file ? copy(file.record) : null;
  }

  async getFileContent(id: string): Promise<string | null> {
    return this.files.get(id)?.content ?? null;
  }

  async listFiles(folderId: string): Promise<FileRecord[]> {
    return [...this.files.values()]
      .filter((file) => file.record.folder_id === folderId)
      .map((file) => copy(file.record));
  }

  async deleteFile(id: string): Promise<boolean> {
    const file = this.files.get(id);
    if (!file) return false;
    this.files.delete(id);
    for (const chunk of file.chunks) this.vectors.delete(chunk.id);
    for (const rows of this.agentRows.values()) rows.delete(id);
    return true;
  }

  async searchChunks(
    folderIds: readonly string[],
    query: string,
    limit: number,
  ): Promise<ChunkHit[]> {
    const wanted = new Set(folderIds);
    const chunks = [...this.files.values()]
      .filter((file) => wanted.has(file.record.folder_id))
      .flatMap((file) => file.chunks);
    return rankBm25(
      query,
      chunks.map((chunk) => chunk.text),
      Math.floor(limit),
    ).map((index) => {
      const { id, file_id, folder_id, text } = chunks[index] as FileChunk;
      return { id, file_id, folder_id, text };
    });
  }

  async attachFolder(
    agentId: string,
    folderId: string,
    files: readonly AgentFileState[],
  ): Promise<void> {
    const rows = files.map((row, i) => copy(parseInput(AgentFileState, row, ["files", i])));
    if (!this.agentExists(agentId)) throw new NotFoundError("agent", agentId);
    if (!this.folders.has(folderId)) throw new NotFoundError("folder", folderId);
    this.checkRows(agentId, rows, [folderId]);
    const list = this.attached.get(agentId) ?? [];
    if (!list.includes(folderId)) this.attached.set(agentId, [...list, folderId]);
    const own = this.agentRows.get(agentId) ?? new Map<string, AgentFileState>();
    for (const [fileId, row] of own) if (row.folder_id === folderId) own.delete(fileId);
    for (const row of rows) own.set(row.file_id, row);
    this.agentRows.set(agentId, own);
  }

  async detachFolder(agentId: string, folderId: string): Promise<boolean> {
    return this.dropAttachment(agentId, folderId);
  }

  async agentFolders(agentId: string): Promise<string[]> {
    return [...(this.attached.get(agentId) ?? [])];
  }

  async folderAgents(folderId: string): Promise<string[]> {
    return [...this.attached].filter(([, ids]) => ids.includes(folderId)).map(([agent]) => agent);
  }

  async agentFiles(agentId: string): Promise<AgentFileState[]> {
    return [...(this.agentRows.get(agentId)?.values() ?? [])].map(copy);
  }

  async putAgentFiles(agentId: string, files: readonly AgentFileState[]): Promise<void> {
    const rows = files.map((row, i) => copy(parseInput(AgentFileState, row, ["files", i])));
    if (!this.agentExists(agentId)) throw new NotFoundError("agent", agentId);
    this.checkRows(agentId, rows, this.attached.get(agentId) ?? []);
    const own = this.agentRows.get(agentId) ?? new Map<string, AgentFileState>();
    for (const row of rows) own.set(row.file_id, row);
    this.agentRows.set(agentId, own);
  }

  async unembeddedChunks(
    folderId: string,
    model: string,
    after: number,
    limit: number,
  ): Promise<EmbeddingTarget[]> {
    return this.chunksOf([folderId])
      .map((chunk) => ({ id: chunk.id, text: chunk.text, position: this.positionOf(chunk.id) }))
      .filter((row) => row.position > after && this.vectors.get(row.id)?.model !== model)
      .slice(0, Math.max(0, Math.floor(limit)));
  }

  async putChunkVectors(
    folderId: string,
    model: string,
    vectors: readonly RowVector[],
  ): Promise<number> {
    const known = new Set(this.chunksOf([folderId]).map((chunk) => chunk.id));
    let stored = 0;
    for (const { id, vector } of vectors) {
      if (!known.has(id)) continue;
      this.vectors.set(id, { model, vector: new Float32Array(vector) });
      stored += 1;
    }
    return stored;
  }

  async foldersWithChunks(): Promise<string[]> {
    const withChunks = new Set(
      [...this.files.values()].filter((f) => f.chunks.length > 0).map((f) => f.record.folder_id),
    );
    return [...this.folders.keys()].filter((id) => withChunks.has(id));
  }

  async nearestChunks(
    folderIds: readonly string[],
    model: string,
    vector: Float32Array,
    limit: number,
  ): Promise<ChunkHit[]> {
    return this.chunksOf(folderIds)
      .flatMap((chunk) => {
        const own = this.vectors.get(chunk.id);
        return own?.model === model
          ? [{ chunk, distance: cosineDistance(own.vector, vector) }]
          : [];
      })
      .sort((a, b) => a.distance - b.distance)
      .slice(0, Math.max(0, Math.floor(limit)))
      .map(({ chunk: { id, file_id, folder_id, text } }) => ({ id, file_id, folder_id, text }));
  }

  private chunksOf(folderIds: readonly string[]): FileChunk[] {
    const wanted = new Set(folderIds);
    return [...this.files.values()]
      .filter((file) => wanted.has(file.record.folder_id))
      .flatMap((file) => file.chunks)
      .sort((a, b) => this.positionOf(a.id) - this.positionOf(b.id));
  }

  private positionOf(chunkId: string): number {
    return this.positions.get(chunkId) ?? 0;
  }

  /** Forgets an agent's attachments and rows (the store deleted the agent). */
  forgetAgent(agentId: string): void {
    this.attached.delete(agentId);
    this.agentRows.delete(agentId);
  }

  private checkRows(agentId: string, rows: readonly AgentFileState[], folders: string[]): void {
    for (const row of rows) {
      const file = this.files.get(row.file_id);
      if (row.agent_id !== agentId || !file || file.record.folder_id !== row.folder_id) {
        throw new NotFoundError("file", row.file_id);
      }
      if (!folders.includes(row.folder_id)) {
        throw new NotFoundError("attached folder", row.folder_id);
      }
    }
  }

  private dropAttachment(agentId: string, folderId: string): boolean {
    const list = this.attached.get(agentId) ?? [];
    if (!list.includes(folderId)) return false;
    this.attached.set(
      agentId,
      list.filter((id) => id !== folderId),
    );
    const own = this.agentRows.get(agentId);
    for (const [fileId, row] of own ?? []) if (row.folder_id === folderId) own?.delete(fileId);
    return true;
  }
}
