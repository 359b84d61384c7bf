import { MEMORY_IMPLEMENTATIONS } from "./builtin/memory-tools.js";
import type { Sandbox } from "./sandbox/sandbox.js";
import type { ToolImplementation } from "./tool.js";
import { workspaceImplementations } from "./workspace/index.js";

/**
 * The runnable built-in tools, by name. The shell runs in `sandbox`; with `null` the server has
 * no sandbox and no shell (capabilities withhold it with the reason).
 */
export function builtinToolImplementations(
  sandbox: Sandbox | null,
): Map<string, ToolImplementation> {
  return new Map(
    [...MEMORY_IMPLEMENTATIONS, ...workspaceImplementations(sandbox)].map((tool) => [
      tool.declaration.name,
      tool,
    ]),
  );
}
