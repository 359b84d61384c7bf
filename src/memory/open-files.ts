import type { AgentFileState } from "../records/folder.js";

/** What opening a file changes: the rows to write, and the names of files it closed. */
export interface Opened {
  rows: AgentFileState[];
  closed: string[];
}

/**
 * Opens a file for an agent as Letta's `enforce_max_open_files_and_open` does: if the other
 * open files already fill all but one of the `maxOpen` places, the least recently used are
 * closed to make room. The file opens with `view` in sight and counts as used at `nowMs`.
 */
export function openFile(
  rows: readonly AgentFileState[],
  fileId: string,
  view: { text: string; startLine: number | null; endLine: number | null },
  maxOpen: number,
  nowMs: number,
): Opened {
  const target = rows.find((row) => row.file_id === fileId);
  if (!target) return { rows: [], closed: [] };
  const others = rows
    .filter((row) => row.is_open && row.file_id !== fileId)
    .sort((a, b) => a.last_accessed_ms - b.last_accessed_ms);
  const excess = Math.max(0, others.length - (maxOpen - 1));
  const evicted = others.slice(0, excess).map(closeRow);
  const opened: AgentFileState = {
    ...target,
    is_open: true,
    visible_content: view.text,
    start_line: view.startLine,
    end_line: view.endLine,
    last_accessed_ms: nowMs,
  };
  return { rows: [...evicted, opened], closed: evicted.map((row) => row.file_name) };
}

/** The row closed: out of the context, its view dropped. */
export function closeRow(row: AgentFileState): AgentFileState {
  return { ...row, is_open: false, visible_content: null, start_line: null, end_line: null };
}

/**
 * Letta's file rows for files newly attached (Letta's `attach_files_bulk`): the first `maxOpen`
 * of `added` open (the rest closed), and of the files already open, the most recently used
 * that still fit stay open.
 */
export function attachFiles(
  current: readonly AgentFileState[],
  added: readonly AgentFileState[],
  maxOpen: number,
): Opened {
  const keep = Math.max(0, maxOpen - added.length);
  const open = current
    .filter((row) => row.is_open)
    .sort((a, b) => b.last_accessed_ms - a.last_accessed_ms);
  const evicted = open.slice(keep).map(closeRow);
  const rows = added.map((row, i) => (i < maxOpen ? row : closeRow(row)));
  const closed = [...evicted, ...rows.filter((row) => !row.is_open)].map((row) => row.file_name);
  return { rows: [...evicted, ...rows], closed };
}
