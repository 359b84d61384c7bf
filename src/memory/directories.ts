import type { AgentFileState, FolderRecord } from "../records/folder.js";
import type { FolderStore } from "../storage/folder-store.js";
import { fileViewChars, MAX_FILES_OPEN, truncateView } from "./file-view.js";

/**
 * The `<directories>` part of an agent's context, as Letta compiles it into core memory: the
 * file limits, then each attached folder with its description and instructions and each of its
 * files, open ones with their view (cut to `perFileChars`). Empty with no folder attached.
 */
export function renderDirectories(
  folders: readonly FolderRecord[],
  files: readonly AgentFileState[],
  limits: { maxFilesOpen: number; perFileChars: number },
): string {
  if (folders.length === 0) return "";
  const open = files.filter((file) => file.is_open).length;
  const out = [
    "<directories>",
    "<file_limits>",
    `- current_files_open=${open}`,
    `- max_files_open=${limits.maxFilesOpen}`,
    "</file_limits>",
  ];
  for (const folder of folders) {
    out.push(`<directory name="${folder.name}">`);
    if (folder.description) out.push(`<description>${folder.description}</description>`);
    if (folder.instructions) out.push(`<instructions>${folder.instructions}</instructions>`);
    for (const file of files.filter((f) => f.folder_id === folder.id)) {
      const value = file.is_open
        ? truncateView(file.visible_content ?? "", limits.perFileChars)
        : "";
      out.push(`<file status="${file.is_open ? "open" : "closed"}" name="${file.file_name}">`);
      out.push(
        "<metadata>",
        `- chars_current=${value.length}`,
        `- chars_limit=${limits.perFileChars}`,
      );
      out.push("</metadata>");
      if (value !== "") out.push("<value>", value, "</value>");
      out.push("</file>");
    }
    out.push("</directory>");
  }
  out.push("</directories>");
  return out.join("\n");
}

/**
 * The directories of an agent, read from its store, with Letta's limits for a model of
 * `contextWindow` tokens; empty when it has no folder attached (or the store keeps none).
 */
export async function loadDirectories(
  folders: Pick<FolderStore, "agentFolders" | "agentFiles" | "getFolder"> | undefined,
  agentId: string,
  contextWindow: number,
): Promise<string> {
  if (!folders) return "";
  const limits = { maxFilesOpen: MAX_FILES_OPEN, perFileChars: fileViewChars(contextWindow) };
  const ids = await folders.agentFolders(agentId);
  if (ids.length === 0) return "";
  const records = (await Promise.all(ids.map((id) => folders.getFolder(id)))).filter(
    (folder): folder is FolderRecord => folder !== null,
  );
  return renderDirectories(records, await folders.agentFiles(agentId), limits);
}
