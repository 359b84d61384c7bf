import { MEMORY_IMPLEMENTATIONS } from "./builtin/memory-tools.js";
import type { ToolImplementation } from "./tool.js";

/** The runnable built-in tools, by name. */
export function builtinToolImplementations(): Map<string, ToolImplementation> {
  return new Map([...MEMORY_IMPLEMENTATIONS].map((tool) => [tool.declaration.name, tool]));
}
