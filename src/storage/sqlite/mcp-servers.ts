import type { DatabaseSync } from "node:sqlite";
import { ConflictError } from "../../core/errors.js";
import { McpServerRecord } from "../../records/mcp-server.js";
import type { McpServerStore } from "../store.js";
import { decodeRow, parseInput } from "../store-rows.js";

/**
 * MCP servers in SQLite: one row each, the record whole in `body`. Each write is one statement,
 * atomic on its own, so none needs the store's transactions (and none is open between turns of
 * the event loop, which group commit relies on).
 */
export class SqliteMcpServers implements McpServerStore {
  constructor(private readonly db: DatabaseSync) {}

  async put(server: McpServerRecord): Promise<void> {
    const parsed = parseInput(McpServerRecord, server, ["mcp_server"]);
    const holder = this.db
      .prepare("SELECT id FROM mcp_servers WHERE name = ? AND id <> ?")
      .get(parsed.name, parsed.id);
    if (holder) throw new ConflictError(`an MCP server named '${parsed.name}' exists`);
    this.db
      .prepare(
        `INSERT INTO mcp_servers (id, name, body) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, body = excluded.body`,
      )
      .run(parsed.id, parsed.name, JSON.stringify(parsed));
  }

  async list(): Promise<McpServerRecord[]> {
    const rows = this.db.prepare("SELECT body FROM mcp_servers ORDER BY seq").all();
    return rows.map((row) => decodeRow(McpServerRecord, String(row.body), "MCP server"));
  }

  async delete(id: string): Promise<boolean> {
    return Number(this.db.prepare("DELETE FROM mcp_servers WHERE id = ?").run(id).changes) > 0;
  }
}
