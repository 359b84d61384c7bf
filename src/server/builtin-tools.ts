import { spawnTools } from "../agent/spawn-tools.js";
import type { HoldfastConfig } from "../config/config-file.js";
import type { FolderStore } from "../storage/folder-store.js";
import { folderToolImplementations, type NearestChunks } from "../tools/files/index.js";
import { builtinToolImplementations } from "../tools/registry.js";
import type { Sandbox } from "../tools/sandbox/sandbox.js";
import type { ToolImplementation } from "../tools/tool.js";
import type { WebSettings } from "../tools/web/web-settings.js";

/**
 * The built-in tool source: every built-in implementation, the shell only with a sandbox, the
 * web tools with the server's web settings, the spawn tools, which need the type registry, and
 * the file tools, which need the store's folders. What it lacks of the declared built-in tools
 * the live catalogue withholds with the reason.
 */
export function builtinImplementations(
  config: HoldfastConfig,
  sandbox: Sandbox | null,
  web?: WebSettings,
  folders?: FolderStore,
  nearest?: NearestChunks,
): ToolImplementation[] {
  return [
    ...builtinToolImplementations(sandbox, web).values(),
    ...spawnTools(config.registry),
    ...(folders ? folderToolImplementations(folders, nearest) : []),
  ];
}
