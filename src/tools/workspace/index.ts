import type { Sandbox } from "../sandbox/sandbox.js";
import type { ToolImplementation } from "../tool.js";
import { FILE_IMPLEMENTATIONS } from "./file-tools.js";
import { createShellImplementation } from "./shell-tool.js";

export { type ConfinedPath, resolveInWorkspace } from "./confine.js";
export {
  editFileImplementation,
  FILE_IMPLEMENTATIONS,
  listDirectoryImplementation,
  readFileImplementation,
  searchFilesImplementation,
  writeFileImplementation,
} from "./file-tools.js";
export { createShellImplementation } from "./shell-tool.js";

/**
 * The workspace tools that run here: the file tools, confined to the agent's workspace root,
 * and the shell in `sandbox`; with `null` (no sandbox, and none not chosen) there is no shell.
 * The web and HTTP tools are in `../web`; the sub-agent tools by the loop (`agent/spawn-tools.ts`).
 */
export function workspaceImplementations(sandbox: Sandbox | null): ToolImplementation[] {
  const shell = sandbox ? [createShellImplementation(sandbox)] : [];
  return [...shell, ...FILE_IMPLEMENTATIONS];
}
