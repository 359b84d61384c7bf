import { MEMORY_IMPLEMENTATIONS } from "./builtin/memory-tools.js";
import type { Sandbox } from "./sandbox/sandbox.js";
import type { ToolImplementation } from "./tool.js";
import { webImplementations } from "./web/index.js";
import type { WebSettings } from "./web/web-settings.js";
import { workspaceImplementations } from "./workspace/index.js";

/**
 * The runnable built-in tools, by name. The shell runs in `sandbox`; with `null` the server has
 * no sandbox and no shell (capabilities withhold it with the reason). The web tools reach the
 * network as `web` allows; `web_search` runs only with a search provider in it.
 */
export function builtinToolImplementations(
  sandbox: Sandbox | null,
  web?: WebSettings,
): Map<string, ToolImplementation> {
  const runnable = [
    ...MEMORY_IMPLEMENTATIONS,
    ...workspaceImplementations(sandbox),
    ...webImplementations(web),
  ];
  return new Map(runnable.map((tool) => [tool.declaration.name, tool]));
}
