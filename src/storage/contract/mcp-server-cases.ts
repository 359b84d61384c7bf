import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../../core/errors.js";
import type { McpServerRecord } from "../../records/mcp-server.js";
import { type ContractContext, DATE, type StoreContractOptions } from "./fixtures.js";

export function mcpServer(id: string, name = id, config = {}): McpServerRecord {
  return {
    id,
    name,
    config: { command: "node", args: ["server.js"], env: { TOKEN: "secret" }, ...config },
    created_at: DATE,
    updated_at: DATE,
  };
}

export function mcpServerCases(t: ContractContext, options: StoreContractOptions): void {
  describe("MCP servers", () => {
    it("lists servers in the order they were added; replacing one keeps its place", async () => {
      await t.store.mcpServers.put(mcpServer("m-1", "one"));
      await t.store.mcpServers.put(mcpServer("m-2", "two"));
      await t.store.mcpServers.put(mcpServer("m-1", "uno", { command: "python" }));
      const listed = await t.store.mcpServers.list();
      expect(listed.map((server) => server.name)).toEqual(["uno", "two"]);
      expect(listed[0]?.config.command).toBe("python");
    });

    it("refuses a name another server has, and a record that does not parse", async () => {
      await t.store.mcpServers.put(mcpServer("m-1", "one"));
      await expect(t.store.mcpServers.put(mcpServer("m-2", "one"))).rejects.toThrow(ConflictError);
      const bad = { ...mcpServer("m-3"), name: "" };
      await expect(t.store.mcpServers.put(bad)).rejects.toThrow(ValidationError);
      expect(await t.store.mcpServers.list()).toHaveLength(1);
    });

    it("deletes a server by id, once", async () => {
      await t.store.mcpServers.put(mcpServer("m-1"));
      expect(await t.store.mcpServers.delete("m-1")).toBe(true);
      expect(await t.store.mcpServers.delete("m-1")).toBe(false);
      expect(await t.store.mcpServers.list()).toEqual([]);
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps MCP servers across close and reopen, secrets included", async () => {
        await t.store.mcpServers.put(mcpServer("m-1"));
        t.store = await reopen(t.store);
        expect(await t.store.mcpServers.list()).toEqual([mcpServer("m-1")]);
      });
    }
  });
}
