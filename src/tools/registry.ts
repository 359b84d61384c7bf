import { MEMORY_IMPLEMENTATIONS } from "./builtin/memory-tools.js";
import type { ToolImplementation } from "./tool.js";
import { WORKSPACE_IMPLEMENTATIONS } from "./workspace/index.js";

/** The runnable built-in tools, by name. */
export function builtinToolImplementations(): Map<string, ToolImplementation> {
  return new Map(
    [...MEMORY_IMPLEMENTATIONS, ...WORKSPACE_IMPLEMENTATIONS].map((tool) => [
      tool.declaration.name,
      tool,
    ]),
  );
}
