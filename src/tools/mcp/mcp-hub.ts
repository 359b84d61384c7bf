import type { Clock } from "../../core/clock.js";
import type { LiveToolCatalogue } from "../live-catalogue.js";
import type { ToolImplementation } from "../tool.js";
import { ToolName } from "../tool-declaration.js";
import { McpConnection, type McpConnectionState } from "./mcp-connection.js";
import { type McpServerConfig, mcpPackName } from "./mcp-server-config.js";
import { mcpToolImplementation, mcpToolRisk } from "./mcp-tool.js";

/** Where a server was declared: in the config file (fixed), or through the API (stored). */
export type McpServerOrigin = "config" | "api";

/** One server as the hub runs it. */
export interface McpServerEntry {
  /** Letta's id of the server: `mcp_server-…`. */
  readonly id: string;
  readonly name: string;
  readonly origin: McpServerOrigin;
  readonly config: McpServerConfig;
  readonly connection: McpConnection;
}

/** What a server shows about itself: state, tools offered, and tools left out and why. */
export interface McpServerStatus {
  readonly state: McpConnectionState;
  readonly tools: readonly string[];
  readonly skipped: readonly { name: string; reason: string }[];
}

export interface McpHubOptions {
  catalogue: LiveToolCatalogue;
  clock: Clock;
  log?(message: string): void;
}

/**
 * The MCP servers the server runs, each a tool source of the live catalogue: when a server
 * connects, reconnects with other tools, or is added or removed, the catalogue changes and
 * agents see it on their next turn.
 */
export class McpHub {
  private readonly servers = new Map<string, McpServerEntry>();

  constructor(private readonly options: McpHubOptions) {}

  /** Declares a server: its (empty) pack exists at once, its tools once it connects. */
  add(
    name: string,
    config: McpServerConfig,
    origin: McpServerOrigin,
    id = `mcp_server-${name}`,
  ): McpServerEntry {
    const connection = new McpConnection({
      name,
      config,
      clock: this.options.clock,
      onChange: () => this.publish(name),
      ...(this.options.log ? { log: this.options.log } : {}),
    });
    const entry = { id, name, origin, config, connection };
    this.servers.set(name, entry);
    this.options.catalogue.setSource(mcpPackName(name), []);
    return entry;
  }

  /** Stops a server and takes its tools out of the catalogue. */
  async remove(name: string): Promise<void> {
    const entry = this.servers.get(name);
    if (!entry) return;
    this.servers.delete(name);
    this.options.catalogue.removeSource(mcpPackName(name));
    await entry.connection.close();
  }

  get(name: string): McpServerEntry | undefined {
    return this.servers.get(name);
  }

  list(): McpServerEntry[] {
    return [...this.servers.values()];
  }

  /** Connects every declared server; resolves when each has made its first attempt. */
  async startAll(): Promise<void> {
    await Promise.all(this.list().map((entry) => entry.connection.start()));
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.list().map((entry) => this.remove(entry.name)));
  }

  status(name: string): McpServerStatus | undefined {
    const entry = this.servers.get(name);
    if (!entry) return undefined;
    const pack = mcpPackName(name);
    const { tools, skipped } = this.implementations(entry);
    const offered = this.options.catalogue.packs.get(pack) ?? [];
    const conflicts = this.options.catalogue.conflicts(pack).map((tool) => ({
      name: tool,
      reason: "another tool source already has a tool of this name; set 'tool_prefix'",
    }));
    return {
      state: entry.connection.state,
      tools: tools.map((tool) => tool.declaration.name).filter((tool) => offered.includes(tool)),
      skipped: [...skipped, ...conflicts],
    };
  }

  private publish(name: string): void {
    const entry = this.servers.get(name);
    if (!entry) return;
    this.options.catalogue.setSource(mcpPackName(name), this.implementations(entry).tools);
  }

  /** The server's tools as Holdfast tools; a name Holdfast cannot use is skipped, with why. */
  private implementations(entry: McpServerEntry): {
    tools: ToolImplementation[];
    skipped: { name: string; reason: string }[];
  } {
    const { config, connection } = entry;
    const tools: ToolImplementation[] = [];
    const skipped: { name: string; reason: string }[] = [];
    for (const tool of connection.tools) {
      const name = `${config.tool_prefix ?? ""}${tool.name}`;
      if (!ToolName.safeParse(name).success) {
        skipped.push({ name, reason: "not a valid tool name (1-64 letters, digits, _ or -)" });
        continue;
      }
      tools.push(
        mcpToolImplementation(tool, {
          name,
          risk: mcpToolRisk(tool, config.risk),
          source: mcpPackName(entry.name),
          timeoutMs: connection.timeoutMs,
          call: (toolName, args, signal) => connection.call(toolName, args, signal),
        }),
      );
    }
    return { tools, skipped };
  }
}
