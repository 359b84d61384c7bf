import { ConflictError } from "../../core/errors.js";
import { McpServerRecord } from "../../records/mcp-server.js";
import type { McpServerStore } from "../store.js";
import { parseInput } from "../store-rows.js";

/** MCP servers in memory, in the order they were added (a Map keeps a key's first place). */
export class InMemoryMcpServers implements McpServerStore {
  private readonly servers = new Map<string, McpServerRecord>();

  async put(server: McpServerRecord): Promise<void> {
    const parsed = structuredClone(parseInput(McpServerRecord, server, ["mcp_server"]));
    const holder = [...this.servers.values()].find(
      (other) => other.name === parsed.name && other.id !== parsed.id,
    );
    if (holder) throw new ConflictError(`an MCP server named '${parsed.name}' exists`);
    this.servers.set(parsed.id, parsed);
  }

  async list(): Promise<McpServerRecord[]> {
    return [...this.servers.values()].map((server) => structuredClone(server));
  }

  async delete(id: string): Promise<boolean> {
    return this.servers.delete(id);
  }
}
