import { assert } from "../core/errors.js";
import { FOLDER_TOOLS } from "./builtin/folder-tools.js";
import { LETTA_TOOLS } from "./builtin/letta-tools.js";
import { WORKSPACE_TOOLS } from "./builtin/workspace-tools.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/**
 * Every tool Holdfast knows, and the named packs that group them. Agent types refer to tools
 * by name and to packs by name; this is where both names are resolved.
 */
export interface ToolCatalogue {
  readonly tools: ReadonlyMap<string, ToolDeclaration>;
  readonly packs: ReadonlyMap<string, readonly string[]>;
  /**
   * Tools this server cannot run, and why (the shell without a sandbox). They stay declared, so
   * types naming them still resolve; capabilities withhold them with the reason.
   */
  readonly unavailable: ReadonlyMap<string, string>;
  /**
   * Counts changes of a catalogue that changes while the server runs (MCP servers connecting,
   * added or removed); absent for a fixed one. Activations rebuild when it moves on.
   */
  readonly version?: number;
}

/** The built-in packs. A pack is a flat list of tool names. */
export const BUILTIN_PACKS: Readonly<Record<string, readonly string[]>> = {
  messaging: ["send_message"],
  heartbeat: ["pause_heartbeats"],
  memgpt_memory: [
    "core_memory_append",
    "core_memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
  ],
  letta_memory: ["memory_insert", "memory_replace", "conversation_search"],
  memory: [
    "core_memory_append",
    "core_memory_replace",
    "memory_insert",
    "memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
  ],
  shell: ["shell"],
  filesystem_read: ["read_file", "list_directory", "search_files"],
  filesystem: ["read_file", "list_directory", "search_files", "write_file", "edit_file"],
  web: ["web_search", "web_fetch"],
  http: ["http_request"],
  spawn: ["spawn_agent", "list_agent_types"],
  files: ["open_files", "grep_files", "semantic_search_files"],
};

/** Builds a catalogue; every pack member must be a declared tool and names must be unique. */
export function createToolCatalogue(
  tools: readonly ToolDeclaration[],
  packs: Readonly<Record<string, readonly string[]>>,
): ToolCatalogue {
  const byName = new Map<string, ToolDeclaration>();
  for (const tool of tools) {
    assert(!byName.has(tool.name), `tool '${tool.name}' is declared twice`);
    byName.set(tool.name, tool);
  }
  const packMap = new Map<string, readonly string[]>();
  for (const [pack, members] of Object.entries(packs)) {
    for (const member of members) {
      assert(byName.has(member), `pack '${pack}' names unknown tool '${member}'`);
    }
    packMap.set(pack, [...members]);
  }
  return { tools: byName, packs: packMap, unavailable: new Map() };
}

/** The catalogue of built-in tools and packs. */
export function builtinToolCatalogue(): ToolCatalogue {
  return createToolCatalogue([...LETTA_TOOLS, ...WORKSPACE_TOOLS, ...FOLDER_TOOLS], BUILTIN_PACKS);
}

/** A catalogue with more packs added; the caller has checked names and members. */
export function withPacks(
  catalogue: ToolCatalogue,
  packs: Readonly<Record<string, readonly string[]>>,
): ToolCatalogue {
  const merged = { ...Object.fromEntries(catalogue.packs), ...packs };
  const created = createToolCatalogue([...catalogue.tools.values()], merged);
  return { ...created, unavailable: catalogue.unavailable };
}

/** The catalogue with `name` marked as not runnable on this server, for `reason`. */
export function withUnavailable(
  catalogue: ToolCatalogue,
  name: string,
  reason: string,
): ToolCatalogue {
  assert(catalogue.tools.has(name), `cannot mark unknown tool '${name}' unavailable`);
  return { ...catalogue, unavailable: new Map([...catalogue.unavailable, [name, reason]]) };
}
