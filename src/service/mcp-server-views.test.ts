import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { configFromLetta, LettaMcpConfig } from "./mcp-server-views.js";

const letta = (value: unknown) => LettaMcpConfig.parse(value);

describe("Letta's MCP server configs", () => {
  it("puts a bearer token in the header Letta names, Authorization by default", () => {
    const config = configFromLetta(
      letta({
        server_url: "https://mcp.example.com/mcp",
        auth_token: "Bearer t",
        custom_headers: { "x-a": "1" },
      }),
    );
    expect(config).toEqual({
      url: "https://mcp.example.com/mcp",
      headers: { "x-a": "1", Authorization: "Bearer t" },
    });
  });

  it("lays an update over the current config: what is sent replaces, null and absent keep", () => {
    const base = configFromLetta(letta({ command: "node", args: ["a.js"], env: { K: "v" } }));
    const changed = configFromLetta(
      letta({ mcp_server_type: "stdio", args: null, timeout_ms: 500 }),
      base,
    );
    expect(changed).toEqual({ command: "node", args: ["a.js"], env: { K: "v" }, timeout_ms: 500 });
  });

  it("refuses the SSE transport, and a config that is neither stdio nor HTTP, with paths", () => {
    const sse = () =>
      configFromLetta(letta({ mcp_server_type: "sse", server_url: "http://x/sse" }));
    expect(sse).toThrow(ValidationError);
    const neither = (() => {
      try {
        configFromLetta(letta({ mcp_server_type: "stdio" }));
      } catch (error) {
        return error as ValidationError;
      }
    })();
    expect(neither?.errors.map((e) => e.path)).toEqual(["config.command"]);
    const badUrl = (() => {
      try {
        configFromLetta(letta({ mcp_server_type: "streamable_http", server_url: "not a url" }));
      } catch (error) {
        return error as ValidationError;
      }
    })();
    // The field the client sent, not the name Holdfast stores it under.
    expect(badUrl?.errors.map((e) => e.path)).toEqual(["config.server_url"]);
  });
});
