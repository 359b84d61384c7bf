import { describe, expect, it } from "vitest";
import { McpServerConfig, redactedServerConfig, redactSecrets } from "./mcp-server-config.js";

describe("MCP server config", () => {
  const server = McpServerConfig.parse({
    url: "https://mcp.example.com/mcp",
    headers: { authorization: "Bearer abcdefgh12345678", "x-team": "red-team-key" },
  });

  it("shows header and env names but never their values", () => {
    expect(redactedServerConfig(server).headers).toEqual({
      authorization: "<redacted>",
      "x-team": "<redacted>",
    });
    const stdio = McpServerConfig.parse({ command: "srv", env: { API_KEY: "k-123456" } });
    expect(redactedServerConfig(stdio).env).toEqual({ API_KEY: "<redacted>" });
  });

  it("removes secrets, and a bearer token alone, from messages", () => {
    const text = "401 for Bearer abcdefgh12345678; token abcdefgh12345678; team red-team-key";
    expect(redactSecrets(text, server)).toBe(
      "401 for <redacted>; token <redacted>; team <redacted>",
    );
  });
});
