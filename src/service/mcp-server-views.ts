import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { McpServerEntry, McpServerStatus } from "../tools/mcp/mcp-hub.js";
import { McpServerConfig, redactedServerConfig } from "../tools/mcp/mcp-server-config.js";
import { RiskClass } from "../tools/tool-declaration.js";

const Headers = z.record(z.string().min(1).max(200), z.string().max(10_000));

/** What Holdfast adds to Letta's server config: fixed risk class, call timeout, name prefix. */
const HoldfastFields = {
  risk: RiskClass.nullish(),
  timeout_ms: z.int().min(100).max(3_600_000).nullish(),
  tool_prefix: z.string().max(16).nullish(),
};

const RemoteFields = {
  server_url: z.string().max(2_000).nullish(),
  auth_header: z.string().max(200).nullish(),
  auth_token: z.string().max(10_000).nullish(),
  custom_headers: Headers.nullish(),
  ...HoldfastFields,
};

/**
 * Letta's `config` of a server to add or change, by `mcp_server_type`; without one, a config
 * with a `server_url` is Streamable HTTP and any other is stdio.
 */
export const LettaMcpConfig = z.preprocess(
  (value) =>
    value && typeof value === "object" && !("mcp_server_type" in value)
      ? { ...value, mcp_server_type: "server_url" in value ? "streamable_http" : "stdio" }
      : value,
  z.discriminatedUnion("mcp_server_type", [
    z.object({
      mcp_server_type: z.literal("stdio"),
      command: z.string().min(1).max(1_000).nullish(),
      args: z.array(z.string().max(10_000)).max(200).nullish(),
      env: Headers.nullish(),
      ...HoldfastFields,
    }),
    z.object({ mcp_server_type: z.literal("streamable_http"), ...RemoteFields }),
    z.object({ mcp_server_type: z.literal("sse"), ...RemoteFields }),
  ]),
);
export type LettaMcpConfig = z.infer<typeof LettaMcpConfig>;

/**
 * Holdfast's config of a server from Letta's, laid over `base` (the current config, for an
 * update): fields sent replace, fields left out or null keep their value. A bearer token goes
 * in as the header Letta names (`Authorization` unless `auth_header` says otherwise).
 */
export function configFromLetta(letta: LettaMcpConfig, base?: McpServerConfig): McpServerConfig {
  if (letta.mcp_server_type === "sse") {
    const message = "the SSE transport is not supported; use 'streamable_http'";
    throw new ValidationError(message, [{ path: "config.mcp_server_type", message }]);
  }
  const extras = {
    risk: letta.risk ?? base?.risk,
    timeout_ms: letta.timeout_ms ?? base?.timeout_ms,
    tool_prefix: letta.tool_prefix ?? base?.tool_prefix,
  };
  const draft =
    letta.mcp_server_type === "streamable_http"
      ? {
          url: letta.server_url ?? base?.url,
          headers: {
            ...(base?.url ? base.headers : {}),
            ...letta.custom_headers,
            ...(letta.auth_token
              ? { [letta.auth_header ?? "Authorization"]: letta.auth_token }
              : {}),
          },
          ...extras,
        }
      : {
          command: letta.command ?? base?.command,
          args: letta.args ?? base?.args,
          env: letta.env ?? base?.env,
          cwd: base?.cwd,
          ...extras,
        };
  const clean = Object.fromEntries(
    Object.entries(draft).filter(([, value]) => value !== undefined),
  );
  const parsed = McpServerConfig.safeParse(clean);
  if (!parsed.success) {
    // Named as the client sent them: Holdfast's `url` and `headers` are Letta's fields.
    const errors = fieldErrorsFromZod(parsed.error).map((error) => {
      const [first = "", ...rest] = error.path.split(".");
      const path = ["config", LETTA_NAMES[first] ?? first, ...rest].filter((p) => p !== "");
      return { ...error, path: path.join(".") };
    });
    throw new ValidationError("invalid MCP server config", errors);
  }
  return parsed.data;
}

/** Letta's names of the config fields Holdfast names otherwise. */
const LETTA_NAMES: Record<string, string> = { url: "server_url", headers: "custom_headers" };

/**
 * Letta's view of a server, with secrets redacted, plus what Holdfast knows of it: where it was
 * declared, its connection state, and the tools it offers or had to leave out.
 */
export function mcpServerView(id: string, entry: McpServerEntry, status: McpServerStatus) {
  const config = redactedServerConfig(entry.config);
  const transport = config.url
    ? {
        mcp_server_type: "streamable_http" as const,
        server_url: config.url,
        auth_header: null,
        auth_token: null,
        custom_headers: config.headers ?? null,
      }
    : {
        mcp_server_type: "stdio" as const,
        command: config.command ?? "",
        args: config.args ?? [],
        env: config.env ?? null,
      };
  return {
    id,
    server_name: entry.name,
    ...transport,
    origin: entry.origin,
    risk: config.risk ?? null,
    timeout_ms: config.timeout_ms ?? null,
    tool_prefix: config.tool_prefix ?? null,
    status: status.state.state,
    status_reason: status.state.state === "failed" ? status.state.reason : null,
    tool_names: [...status.tools],
    skipped_tools: status.skipped.map((tool) => ({ ...tool })),
  };
}
export type McpServerView = ReturnType<typeof mcpServerView>;
