import type { AgentFileState, FileRecord, FolderRecord } from "../records/folder.js";
import { embeddingModelView } from "./embedding-views.js";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Letta's `EmbeddingConfig` of a folder: the handle it was created with, or a placeholder
 * saying search is full-text (the client's type requires the object).
 */
function folderEmbedding(handle: string | null) {
  if (handle !== null) {
    try {
      const view = embeddingModelView(handle);
      return {
        embedding_model: view.embedding_model,
        embedding_endpoint_type: view.embedding_endpoint_type,
        embedding_dim: view.embedding_dim,
        embedding_chunk_size: view.embedding_chunk_size,
        handle,
      };
    } catch {
      // A handle Holdfast cannot parse is shown as it was given.
    }
  }
  return {
    embedding_model: handle ?? "full-text",
    embedding_endpoint_type: "openai",
    embedding_dim: 0,
    embedding_chunk_size: 300,
    handle,
  };
}

/** Letta's `Folder` (and the older `Source`, which agents list). */
export function folderView(folder: FolderRecord) {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    instructions: folder.instructions,
    metadata: folder.metadata,
    embedding_config: folderEmbedding(folder.embedding),
    vector_db_provider: "native",
    created_at: iso(folder.created_at_ms),
    updated_at: iso(folder.updated_at_ms),
  };
}
export type FolderView = ReturnType<typeof folderView>;

/**
 * Letta's `FileMetadata`. Lists and reads show the name without the folder's prefix, as
 * Letta's routes do (`strip_directory_prefix`); the agent-side views keep it.
 */
export function fileView(file: FileRecord, content?: string | null) {
  const slash = file.file_name.indexOf("/");
  return {
    id: file.id,
    source_id: file.folder_id,
    folder_id: file.folder_id,
    file_name: slash >= 0 ? file.file_name.slice(slash + 1) : file.file_name,
    original_file_name: file.original_file_name,
    file_path: null,
    file_type: file.file_type,
    file_size: file.file_size,
    file_creation_date: null,
    file_last_modified_date: null,
    processing_status: file.processing_status,
    error_message: file.error_message,
    total_chunks: file.total_chunks,
    chunks_embedded: file.chunks_embedded,
    content: content ?? null,
    created_at: iso(file.created_at_ms),
    updated_at: iso(file.updated_at_ms),
  };
}

/** Letta's `AgentFileAttachment`: one file as an agent has it, open or closed. */
export function agentFileView(row: AgentFileState, folderName: string) {
  return {
    id: row.id,
    file_id: row.file_id,
    file_name: row.file_name,
    folder_id: row.folder_id,
    folder_name: folderName,
    is_open: row.is_open,
    last_accessed_at: iso(row.last_accessed_ms),
    visible_content: row.is_open ? row.visible_content : null,
    start_line: row.start_line,
    end_line: row.end_line,
  };
}
