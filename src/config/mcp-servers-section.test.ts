import { describe, expect, it } from "vitest";
import { checkConfig } from "./config-file.js";

describe("the mcp_servers section", () => {
  it("accepts stdio and HTTP servers, and types that name their packs before they connect", () => {
    const result = checkConfig({
      mcp_servers: {
        everything: {
          command: "npx",
          args: ["@modelcontextprotocol/server-everything"],
          risk: "read",
        },
        remote: { url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } },
      },
      types: {
        helper: {
          extends: "letta_v1_agent",
          description: "with MCP",
          tools: { packs: ["letta_memory", "mcp:everything"] },
        },
      },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(Object.keys(result.config.mcpServers)).toEqual(["everything", "remote"]);
    expect(result.config.catalogue.packs.get("mcp:everything")).toEqual([]);
    expect(result.config.registry.get("helper")?.tools.packs).toContain("mcp:everything");
  });

  it("reports each bad server field with its path", () => {
    const result = checkConfig({
      mcp_servers: {
        both: { command: "x", url: "http://127.0.0.1:1/mcp" },
        neither: { args: ["a"] },
        misplaced: { url: "http://127.0.0.1:1/mcp", env: { A: "b" } },
        typo: { command: "x", enviroment: {} },
        Bad_Name: { command: "x" },
        risky: { command: "x", risk: "dangerous", timeout_ms: 5 },
      },
    });
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.errors.map((error) => error.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "mcp_servers.both.url",
        "mcp_servers.neither.command",
        "mcp_servers.misplaced.env",
        "mcp_servers.typo.enviroment",
        "mcp_servers.Bad_Name",
        "mcp_servers.risky.risk",
        "mcp_servers.risky.timeout_ms",
      ]),
    );
  });

  it("rejects a type naming the pack of a server that is not declared", () => {
    const result = checkConfig({
      types: {
        helper: { extends: "letta_v1_agent", description: "x", tools: { packs: ["mcp:nowhere"] } },
      },
    });
    expect(result.ok ? [] : result.errors.map((error) => error.path)).toEqual([
      "types.helper.tools.packs.0",
    ]);
  });
});
