import { z } from "zod";
import { RiskClass } from "../tool-declaration.js";

/** A server's name: it names the pack of its tools (`mcp:NAME`). */
export const McpServerName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,47}$/, "a server name is lowercase letters, digits, _ or -");

const StringMap = z.record(z.string().min(1).max(200), z.string().max(10_000));

/**
 * How to reach one MCP server: a command started over stdio, or a Streamable HTTP `url`.
 * `risk` fixes the risk class of all its tools (otherwise each tool's annotations decide);
 * `timeout_ms` bounds each call; `tool_prefix` goes before each tool's name (to avoid a clash). Values of `env` and `headers` are secrets: never shown.
 */
export const McpServerConfig = z
  .strictObject({
    command: z.string().min(1).max(1_000).optional(),
    args: z.array(z.string().max(10_000)).max(200).optional(),
    env: StringMap.optional(),
    cwd: z.string().min(1).max(1_000).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2_000)
      .optional(),
    headers: StringMap.optional(),
    risk: RiskClass.optional(),
    tool_prefix: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,15}$/, "a prefix is 1-16 letters, digits, _ or -")
      .optional(),
    timeout_ms: z.int().min(100).max(3_600_000).optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: server.command === undefined ? ["command"] : ["url"],
        message: "give either 'command' (stdio) or 'url' (Streamable HTTP), not both or neither",
      });
      return;
    }
    const misplaced = server.command
      ? (["headers"] as const).filter((key) => server[key] !== undefined)
      : (["args", "env", "cwd"] as const).filter((key) => server[key] !== undefined);
    for (const key of misplaced) {
      const transport = server.command ? "a stdio server" : "an HTTP server";
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `'${key}' does not apply to ${transport}`,
      });
    }
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** The `mcp_servers:` section: servers by name. */
export const McpServersSection = z.record(McpServerName, McpServerConfig);
export type McpServersSection = z.infer<typeof McpServersSection>;

/** The pack a server's tools form. */
export const mcpPackName = (server: string) => `mcp:${server}`;

/** The default bound on one call, when the server's config sets none. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

const REDACTED = "<redacted>";

/** The config as it may be shown: the values of `env` and `headers` replaced. */
export function redactedServerConfig(server: McpServerConfig): McpServerConfig {
  const hide = (map: Record<string, string> | undefined) =>
    map && Object.fromEntries(Object.keys(map).map((key) => [key, REDACTED]));
  return {
    ...server,
    ...(server.env ? { env: hide(server.env) } : {}),
    ...(server.headers ? { headers: hide(server.headers) } : {}),
  };
}

/** `text` with every secret value of the config replaced, for error messages and logs. */
export function redactSecrets(text: string, server: McpServerConfig): string {
  const values = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  // A header such as `Bearer <token>` leaks its token alone too, so its words count as well.
  const words = values.flatMap((value) => value.split(/\s+/).filter((word) => word.length >= 8));
  const secrets = [...values, ...words].sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of secrets.filter((value) => value.length >= 4)) {
    out = out.split(secret).join(REDACTED);
  }
  return out;
}
