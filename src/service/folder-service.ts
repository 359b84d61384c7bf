import { basename, extname } from "node:path";
import { NotFoundError } from "../core/errors.js";
import {
  chunkText,
  MAX_FILES_OPEN,
  STORED_VIEW_CHARS,
  truncateView,
  viewFile,
} from "../memory/file-view.js";
import { attachFiles } from "../memory/open-files.js";
import type { AgentFileState, FileRecord, FolderRecord } from "../records/folder.js";
import type { ServiceContext } from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import {
  BadFileError,
  documentText,
  FileTooLargeError,
  MAX_UPLOAD_BYTES,
  withoutControlCharacters,
} from "./document-text.js";
import { fileView, folderView } from "./folder-views.js";
import type { ListQuery } from "./requests.js";

export interface FolderFields {
  name?: string | null | undefined;
  description?: string | null | undefined;
  instructions?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  embedding?: string | null | undefined;
}

export interface Upload {
  fileName: string;
  type: string;
  bytes: Uint8Array;
  duplicateHandling: "skip" | "error" | "suffix" | "replace";
  name?: string | undefined;
}

/** What an upload answers: the file, and whether an existing one was kept instead (`skip`). */
export interface Uploaded {
  file: ReturnType<typeof fileView>;
  skipped: boolean;
}

/**
 * Folders and their files (Letta's `/v1/folders`), scoped to the caller's project like agents:
 * another project's folder is reported as missing. Uploads are parsed and chunked in the
 * request, so a file answers `completed` (or the request fails with nothing stored), and are
 * opened in the context of every agent the folder is attached to, as Letta does.
 */
export class FolderService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(projectId: string, query: ListQuery, name?: string) {
    const all = await this.ctx.store.folders.listFolders(projectId);
    const named = name === undefined ? all : all.filter((folder) => folder.name === name);
    return pageOf(named, query).map(folderView);
  }

  async create(projectId: string, fields: FolderFields & { name: string }) {
    const now = this.ctx.clock.now();
    const folder: FolderRecord = {
      id: this.ctx.ids.next("source"),
      project_id: projectId,
      name: fields.name,
      description: fields.description ?? null,
      instructions: fields.instructions ?? null,
      metadata: fields.metadata ?? null,
      embedding: fields.embedding ?? null,
      created_at_ms: now,
      updated_at_ms: now,
    };
    await this.ctx.store.folders.putFolder(folder);
    return folderView(folder);
  }

  async get(projectId: string, folderId: string) {
    return folderView(await this.requireFolder(projectId, folderId));
  }

  async update(projectId: string, folderId: string, fields: FolderFields) {
    const folder = await this.requireFolder(projectId, folderId);
    const changed: FolderRecord = {
      ...folder,
      ...(fields.name != null && { name: fields.name }),
      ...(fields.description !== undefined && { description: fields.description }),
      ...(fields.instructions !== undefined && { instructions: fields.instructions }),
      ...(fields.metadata !== undefined && { metadata: fields.metadata }),
      updated_at_ms: this.ctx.clock.now(),
    };
    await this.ctx.store.folders.putFolder(changed);
    return folderView(changed);
  }

  async delete(projectId: string, folderId: string): Promise<void> {
    await this.requireFolder(projectId, folderId);
    await this.ctx.store.folders.deleteFolder(folderId);
  }

  async agentsOf(projectId: string, folderId: string, query: ListQuery): Promise<string[]> {
    await this.requireFolder(projectId, folderId);
    const ids = await this.ctx.store.folders.folderAgents(folderId);
    return pageOf(
      ids.map((id) => ({ id })),
      query,
    ).map((agent) => agent.id);
  }

  async listFiles(projectId: string, folderId: string, query: ListQuery, withContent: boolean) {
    await this.requireFolder(projectId, folderId);
    const files = pageOf(await this.ctx.store.folders.listFiles(folderId), query);
    return Promise.all(files.map((file) => this.view(file, withContent)));
  }

  async getFile(projectId: string, folderId: string, fileId: string, withContent: boolean) {
    return this.view(await this.requireFile(projectId, folderId, fileId), withContent);
  }

  async deleteFile(projectId: string, folderId: string, fileId: string): Promise<void> {
    await this.requireFile(projectId, folderId, fileId);
    await this.ctx.store.folders.deleteFile(fileId);
  }

  async upload(projectId: string, folderId: string, upload: Upload): Promise<Uploaded> {
    const folder = await this.requireFolder(projectId, folderId);
    if (upload.bytes.byteLength > MAX_UPLOAD_BYTES) {
      throw new FileTooLargeError(`the file is over ${MAX_UPLOAD_BYTES} bytes`);
    }
    const original = upload.name ?? safeName(upload.fileName);
    const { mediaType, text } = await documentText(original, upload.type, upload.bytes);
    const { folders } = this.ctx.store;
    const same = (await folders.listFiles(folderId)).filter(
      (file) => file.original_file_name === original,
    );
    let fileName = `${folder.name}/${original}`;
    if (same.length > 0) {
      if (upload.duplicateHandling === "skip") {
        return { file: await this.view(same[0] as FileRecord, false), skipped: true };
      }
      if (upload.duplicateHandling === "error") {
        const message = `File '${original}' already exists in folder '${folder.name}'`;
        throw new BadFileError(message, [{ path: "duplicate_handling", message }]);
      }
      if (upload.duplicateHandling === "replace") {
        for (const file of same) await folders.deleteFile(file.id);
      } else {
        const ext = extname(original);
        fileName = `${folder.name}/${original.slice(0, original.length - ext.length)}_(${same.length})${ext}`;
      }
    }
    const file = await this.store(folderId, fileName, original, mediaType, upload, text);
    this.ctx.folderEmbedding?.notify(folderId);
    await this.openInAgents(folderId, file, text);
    return { file: await this.view(file, false), skipped: false };
  }

  private async store(
    folderId: string,
    fileName: string,
    original: string,
    mediaType: string,
    upload: Upload,
    text: string,
  ): Promise<FileRecord> {
    const now = this.ctx.clock.now();
    const id = this.ctx.ids.next("file");
    const chunks = chunkText(text).map((chunk, position) => ({
      id: this.ctx.ids.next("passage"),
      file_id: id,
      folder_id: folderId,
      position,
      text: chunk,
    }));
    const file: FileRecord = {
      id,
      folder_id: folderId,
      file_name: fileName,
      original_file_name: original,
      file_type: mediaType,
      file_size: upload.bytes.byteLength,
      processing_status: "completed",
      error_message: null,
      total_chunks: chunks.length,
      chunks_embedded: 0,
      created_at_ms: now,
      updated_at_ms: now,
    };
    await this.ctx.store.folders.addFile(file, text, chunks);
    return file;
  }

  /** A new file opens in every agent the folder is attached to (least recently used closing). */
  private async openInAgents(folderId: string, file: FileRecord, text: string): Promise<void> {
    const { folders } = this.ctx.store;
    for (const agentId of await folders.folderAgents(folderId)) {
      const row = newFileRow(this.ctx, agentId, file, text);
      const { rows } = attachFiles(await folders.agentFiles(agentId), [row], MAX_FILES_OPEN);
      await folders.putAgentFiles(agentId, rows).catch((error: unknown) => {
        // Detached (or deleted) since it was listed: nothing to open.
        if (!(error instanceof NotFoundError)) throw error;
      });
    }
  }

  private async view(file: FileRecord, withContent: boolean) {
    const content = withContent ? await this.ctx.store.folders.getFileContent(file.id) : null;
    return fileView(file, content);
  }

  async requireFolder(projectId: string, folderId: string): Promise<FolderRecord> {
    const folder = await this.ctx.store.folders.getFolder(folderId);
    if (!folder || folder.project_id !== projectId) throw new NotFoundError("folder", folderId);
    return folder;
  }

  private async requireFile(projectId: string, folderId: string, fileId: string) {
    await this.requireFolder(projectId, folderId);
    const file = await this.ctx.store.folders.getFile(fileId);
    if (!file || file.folder_id !== folderId) throw new NotFoundError("file", fileId);
    return file;
  }
}

/** The agent's row for a file just attached: open, its start in view. */
export function newFileRow(
  ctx: Pick<ServiceContext, "ids" | "clock">,
  agentId: string,
  file: FileRecord,
  text: string,
): AgentFileState {
  const view = viewFile(file.file_name, text);
  return {
    id: ctx.ids.next("file_agent"),
    agent_id: agentId,
    file_id: file.id,
    folder_id: file.folder_id,
    file_name: file.file_name,
    is_open: true,
    visible_content: view.ok ? truncateView(view.text, STORED_VIEW_CHARS) : null,
    start_line: null,
    end_line: null,
    last_accessed_ms: ctx.clock.now(),
  };
}

/** The uploaded name without any directory part; Letta's basic sanitising. */
function safeName(fileName: string): string {
  // No directory part and no control characters (names are listed one per line to match).
  const name = withoutControlCharacters(basename(fileName.replaceAll("\\", "/"))).trim();
  if (name === "" || name === "." || name === "..") return "file";
  return name.slice(0, 255);
}
