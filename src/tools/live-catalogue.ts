import { createToolCatalogue, type ToolCatalogue } from "./catalogue.js";
import type { ToolImplementation } from "./tool.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/** Why a declared tool with nothing to run it is not offered. */
export const NOT_IMPLEMENTED = "this server has no implementation of the tool";

/**
 * The catalogue a running server uses: made from tool sources that each give declarations and
 * implementations together, so what capabilities offer is exactly what can run. The built-in
 * source is fixed; each MCP server is a source whose tools form the pack named after it
 * (`mcp:NAME`) and change as it connects, reconnects, or is added and removed.
 *
 * It reads as a plain `ToolCatalogue` whose maps are replaced on every change; `version` counts
 * the changes, so that an activation built on an older version knows to rebuild its agent.
 * A tool name is taken by the first source that declares it: built-in tools first, then MCP
 * servers in the order they were added. A later tool of the same name is left out and reported
 * as a conflict of its source.
 */
export class LiveToolCatalogue implements ToolCatalogue {
  private snapshot: ToolCatalogue;
  private changes = 0;
  private readonly sources = new Map<string, readonly ToolImplementation[]>();
  private readonly conflictsBySource = new Map<string, string[]>();
  /** What can run, by name: one map, refilled in place, so holders of it see every change. */
  readonly runnable = new Map<string, ToolImplementation>();

  /**
   * `base` is the config's catalogue (built-in declarations, the file's packs, and tools the
   * server lacks, such as the shell without a sandbox); `builtin` runs its tools.
   */
  constructor(
    private readonly base: ToolCatalogue,
    private readonly builtin: readonly ToolImplementation[],
  ) {
    this.snapshot = base;
    this.rebuild();
  }

  get tools(): ReadonlyMap<string, ToolDeclaration> {
    return this.snapshot.tools;
  }

  get packs(): ReadonlyMap<string, readonly string[]> {
    return this.snapshot.packs;
  }

  get unavailable(): ReadonlyMap<string, string> {
    return this.snapshot.unavailable;
  }

  get version(): number {
    return this.changes;
  }

  /** Sets the tools of the source `pack` (a new source joins after the others). */
  setSource(pack: string, tools: readonly ToolImplementation[]): void {
    this.sources.set(pack, tools);
    this.rebuild();
  }

  removeSource(pack: string): void {
    if (this.sources.delete(pack)) this.rebuild();
  }

  /** The tools of `pack` left out because an earlier source declares the same name. */
  conflicts(pack: string): readonly string[] {
    return this.conflictsBySource.get(pack) ?? [];
  }

  private rebuild(): void {
    this.runnable.clear();
    for (const tool of this.builtin) this.runnable.set(tool.declaration.name, tool);
    const declarations = [...this.base.tools.values()];
    const taken = new Set(declarations.map((tool) => tool.name));
    const packs: Record<string, readonly string[]> = Object.fromEntries(this.base.packs);
    this.conflictsBySource.clear();
    for (const [pack, tools] of this.sources) {
      const members: string[] = [];
      const conflicts: string[] = [];
      for (const tool of tools) {
        const { name } = tool.declaration;
        if (taken.has(name)) {
          conflicts.push(name);
          continue;
        }
        taken.add(name);
        members.push(name);
        declarations.push(tool.declaration);
        this.runnable.set(name, tool);
      }
      packs[pack] = members;
      this.conflictsBySource.set(pack, conflicts);
    }
    const unavailable = new Map(this.base.unavailable);
    for (const tool of this.base.tools.values()) {
      if (!this.runnable.has(tool.name) && !unavailable.has(tool.name))
        unavailable.set(tool.name, NOT_IMPLEMENTED);
    }
    this.snapshot = { ...createToolCatalogue(declarations, packs), unavailable };
    this.changes += 1;
  }
}
