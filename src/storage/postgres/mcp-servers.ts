import type pg from "pg";
import { ConflictError } from "../../core/errors.js";
import { McpServerRecord } from "../../records/mcp-server.js";
import type { McpServerStore } from "../store.js";
import { parseInput } from "../store-rows.js";
import { bodies, storageError } from "./rows.js";

/**
 * MCP servers in PostgreSQL: one row each, the record whole in `body`. A name taken by another
 * server is refused by the unique index, so two servers adding one name at once cannot both win.
 */
export class PostgresMcpServers implements McpServerStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(server: McpServerRecord): Promise<void> {
    const parsed = parseInput(McpServerRecord, server, ["mcp_server"]);
    try {
      await this.pool.query(
        `INSERT INTO mcp_servers (id, name, body) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, body = excluded.body`,
        [parsed.id, parsed.name, JSON.stringify(parsed)],
      );
    } catch (error) {
      const mapped = storageError(error, undefined);
      if (mapped instanceof ConflictError) {
        throw new ConflictError(`an MCP server named '${parsed.name}' exists`);
      }
      throw mapped;
    }
  }

  async list(): Promise<McpServerRecord[]> {
    const { rows } = await this.pool.query("SELECT body FROM mcp_servers ORDER BY seq");
    return bodies(rows, McpServerRecord, "MCP server");
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query("DELETE FROM mcp_servers WHERE id = $1", [id]);
    return (result.rowCount ?? 0) > 0;
  }
}
