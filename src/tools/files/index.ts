import type { FolderStore } from "../../storage/folder-store.js";
import { grepFilesTool, openFilesTool, semanticSearchFilesTool } from "../builtin/folder-tools.js";
import { implementTool, type ToolImplementation } from "../tool.js";
import { grepFiles } from "./grep-files.js";
import { openFiles } from "./open-files.js";
import { type NearestChunks, semanticSearchFiles } from "./semantic-search.js";

export type { NearestChunks };

/**
 * The `files` pack over the store's folders. Opening a file writes the agent's file rows at
 * once, outside the step's commit: opening the same files again gives the same rows, so a call
 * repeated after a crash does no harm (they count as idempotent).
 */
export function folderToolImplementations(
  folders: FolderStore,
  nearest?: NearestChunks,
): ToolImplementation[] {
  return [
    implementTool(openFilesTool, { idempotent: true }, async (args, ctx) =>
      openFiles(
        folders,
        ctx.agentId,
        args.file_requests,
        args.close_all_others ?? false,
        ctx.clock.now(),
      ),
    ),
    implementTool(grepFilesTool, { idempotent: true }, async (args, ctx) =>
      grepFiles(folders, ctx.agentId, args, ctx.signal, ctx.clock.now()),
    ),
    implementTool(semanticSearchFilesTool, { idempotent: true }, async (args, ctx) =>
      semanticSearchFiles(
        folders,
        ctx.agentId,
        args.query,
        args.limit ?? 5,
        ctx.clock.now(),
        nearest,
      ),
    ),
  ];
}
