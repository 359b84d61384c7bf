import { z } from "zod";

/**
 * A folder (Letta's "source"): a named collection of uploaded files, owned by one project and
 * attached to any of its agents. Names are unique within the project.
 */
export const FolderRecord = z.object({
  id: z.string().min(1).max(200),
  project_id: z.string(),
  name: z.string().min(1).max(255),
  description: z.string().nullable(),
  instructions: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  /** The embedding handle Letta's client asked for, shown back; search is the agent's own. */
  embedding: z.string().nullable(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type FolderRecord = z.infer<typeof FolderRecord>;

/** Letta's file processing states; Holdfast stores a file once it is parsed and chunked. */
export const FileProcessingStatus = z.enum([
  "pending",
  "parsing",
  "embedding",
  "completed",
  "error",
]);
export type FileProcessingStatus = z.infer<typeof FileProcessingStatus>;

/**
 * A file in a folder, without its text (`FolderStore.getFileContent` reads that). `file_name`
 * is Letta's: the folder's name, a slash and the name as uploaded (with `_(n)` before the
 * extension for the n-th duplicate), which is how agents and their file tools name it.
 */
export const FileRecord = z.object({
  id: z.string().min(1).max(200),
  folder_id: z.string(),
  file_name: z.string().min(1),
  original_file_name: z.string().min(1),
  file_type: z.string(),
  file_size: z.int().min(0),
  processing_status: FileProcessingStatus,
  error_message: z.string().nullable(),
  total_chunks: z.int().min(0),
  chunks_embedded: z.int().min(0),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type FileRecord = z.infer<typeof FileRecord>;

/** A passage of a file's text, searched by full text. `position` orders a file's chunks. */
export const FileChunk = z.object({
  id: z.string().min(1).max(200),
  file_id: z.string(),
  folder_id: z.string(),
  position: z.int().min(0),
  text: z.string(),
});
export type FileChunk = z.infer<typeof FileChunk>;

/**
 * One attached file as one agent sees it (Letta's `FileAgent`): open or closed, and when open
 * the lines in view. Rows come and go with the folder's attachment.
 */
export const AgentFileState = z.object({
  /** Letta's id of the file-agent relationship. */
  id: z.string().min(1),
  agent_id: z.string(),
  file_id: z.string(),
  folder_id: z.string(),
  file_name: z.string(),
  is_open: z.boolean(),
  /** The numbered lines in view while open (already cut to the view window); null when closed. */
  visible_content: z.string().nullable(),
  /** 1-based first and last line in view, when opened with a range. */
  start_line: z.int().min(1).nullable(),
  end_line: z.int().min(1).nullable(),
  /** Last opened or found by a search: the least recent open file is closed first. */
  last_accessed_ms: z.number(),
});
export type AgentFileState = z.infer<typeof AgentFileState>;
