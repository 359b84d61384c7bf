import type { ToolImplementation } from "../tool.js";
import { FILE_IMPLEMENTATIONS } from "./file-tools.js";
import { shellImplementation } from "./shell-tool.js";

export { type ConfinedPath, resolveInWorkspace } from "./confine.js";
export {
  editFileImplementation,
  FILE_IMPLEMENTATIONS,
  listDirectoryImplementation,
  readFileImplementation,
  searchFilesImplementation,
  writeFileImplementation,
} from "./file-tools.js";
export { shellImplementation } from "./shell-tool.js";

/**
 * The workspace tools that run here: shell and the file tools, all confined to the agent's
 * workspace root. The web, HTTP and sub-agent tools are declared but not implemented yet.
 */
export const WORKSPACE_IMPLEMENTATIONS: ToolImplementation[] = [
  shellImplementation,
  ...FILE_IMPLEMENTATIONS,
];
