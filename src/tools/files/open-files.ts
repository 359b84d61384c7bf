import {
  MAX_FILES_OPEN,
  STORED_VIEW_CHARS,
  truncateView,
  viewFile,
} from "../../memory/file-view.js";
import { closeRow, openFile } from "../../memory/open-files.js";
import type { AgentFileState } from "../../records/folder.js";
import type { FolderStore } from "../../storage/folder-store.js";
import { failure, success, type ToolResult } from "../tool.js";

export interface OpenRequest {
  file_name: string;
  offset?: number | undefined;
  length?: number | undefined;
}

/**
 * Letta's `open_files`: opens each requested file (optionally a range of its lines) in the
 * agent's context, closing the least recently used beyond five, and answers as Letta does.
 */
export async function openFiles(
  folders: FolderStore,
  agentId: string,
  requests: readonly OpenRequest[],
  closeAllOthers: boolean,
  nowMs: number,
): Promise<ToolResult> {
  if (requests.length > MAX_FILES_OPEN) {
    return failure(
      `Cannot open ${requests.length} files: exceeds configured maximum limit of ${MAX_FILES_OPEN} files`,
    );
  }
  if (requests.length === 0) return failure("No file requests provided");
  const rows = new Map((await folders.agentFiles(agentId)).map((row) => [row.file_id, row]));
  const byName = (name: string) => [...rows.values()].find((row) => row.file_name === name);
  const changed = new Map<string, AgentFileState>();
  const set = (row: AgentFileState) => {
    rows.set(row.file_id, row);
    changed.set(row.file_id, row);
  };
  const wanted = new Set(requests.map((request) => request.file_name));
  const closedByRequest: string[] = [];
  if (closeAllOthers) {
    for (const row of rows.values()) {
      if (!row.is_open || wanted.has(row.file_name)) continue;
      set(closeRow(row));
      closedByRequest.push(row.file_name);
    }
  }
  const evicted: string[] = [];
  for (const request of requests) {
    const row = byName(request.file_name);
    if (!row) {
      const attached = [...rows.values()].map((r) => `'${r.file_name}'`).join(", ");
      return failure(
        `${request.file_name} not attached - did you get the filename correct? Currently you have the following files attached: [${attached}]`,
      );
    }
    const content = (await folders.getFileContent(row.file_id)) ?? "";
    const view = viewFile(row.file_name, content, request);
    if (!view.ok) return failure(view.error);
    const stored = { ...view, text: truncateView(view.text, STORED_VIEW_CHARS) };
    const opened = openFile([...rows.values()], row.file_id, stored, MAX_FILES_OPEN, nowMs);
    for (const next of opened.rows) set(next);
    evicted.push(...opened.closed);
  }
  await folders.putAgentFiles(agentId, [...changed.values()]);
  return success(openedMessage(requests, closedByRequest, evicted));
}

function openedMessage(
  requests: readonly OpenRequest[],
  closedByRequest: string[],
  evicted: string[],
) {
  const summaries = requests.map(({ file_name, offset, length }) =>
    offset !== undefined && length !== undefined
      ? `${file_name} (lines ${offset + 1}-${offset + length})`
      : offset !== undefined
        ? `${file_name} (lines ${offset + 1}-end)`
        : file_name,
  );
  let message =
    summaries.length === 1
      ? `* Opened ${summaries[0]}`
      : `* Opened ${summaries.length} files: ${summaries.join(", ")}`;
  if (closedByRequest.length > 0) {
    message += `\nNote: Closed ${closedByRequest.length} file(s) due to close_all_others=True: ${closedByRequest.join(", ")}`;
  }
  if (evicted.length > 0) {
    message += `\nNote: Closed ${evicted.length} least recently used file(s) due to open file limit: ${evicted.join(", ")}`;
  }
  return message;
}
