import type { HoldfastConfig } from "../config/config-file.js";
import type { Clock } from "../core/clock.js";
import type { McpServerRecord } from "../records/mcp-server.js";
import type { Store } from "../storage/store.js";
import type { NearestChunks } from "../tools/files/index.js";
import { LiveToolCatalogue } from "../tools/live-catalogue.js";
import { McpHub } from "../tools/mcp/mcp-hub.js";
import { McpServerConfig } from "../tools/mcp/mcp-server-config.js";
import type { Sandbox } from "../tools/sandbox/sandbox.js";
import type { WebSettings } from "../tools/web/web-settings.js";
import { builtinImplementations } from "./builtin-tools.js";

/** How long start-up waits for MCP servers to connect before serving without them. */
const MCP_START_WAIT_MS = 15_000;

export interface ToolSources {
  /** The config with the live catalogue in place of the fixed one. */
  config: HoldfastConfig;
  catalogue: LiveToolCatalogue;
  hub: McpHub;
}

/**
 * Makes the server's tool sources: the built-in tools (the shell only with a sandbox; the
 * spawn tools, which need the type registry) and one source per MCP server, the config file's
 * and those stored through the API. Waits a bounded time for the servers' first connection,
 * so that tools are there when the first request comes; a slow server joins later.
 */
export async function startToolSources(options: {
  config: HoldfastConfig;
  store: Store;
  /** Whether stdio servers stored through the API may start (see `tools.mcp.api_stdio`). */
  apiStdio: boolean;
  sandbox: Sandbox | null;
  web?: WebSettings;
  /** Vector search of folders' chunks, for `semantic_search_files`. */
  nearestChunks?: NearestChunks;
  clock: Clock;
  log?: (message: string) => void;
}): Promise<ToolSources> {
  const { config, store, clock, log } = options;
  const builtin = builtinImplementations(
    config,
    options.sandbox,
    options.web,
    store.folders,
    options.nearestChunks,
  );
  const catalogue = new LiveToolCatalogue(config.catalogue, builtin);
  const hub = new McpHub({ catalogue, clock, ...(log ? { log } : {}) });
  for (const [name, server] of Object.entries(config.mcpServers)) hub.add(name, server, "config");
  for (const stored of await store.mcpServers.list()) {
    const admitted = admit(hub, stored, options.apiStdio, log);
    if (admitted) hub.add(stored.name, admitted, "api", stored.id);
  }
  const waited = new AbortController();
  await Promise.race([
    hub.startAll(),
    clock.sleep(MCP_START_WAIT_MS, waited.signal).catch(() => {}),
  ]);
  waited.abort();
  return { config: { ...config, catalogue }, catalogue, hub };
}

/**
 * Brings the servers added through the API in line with the store, where another process
 * (an API server of the cluster) added, changed or removed some: a new one is added and
 * connected, a changed one reconnected, a removed one stopped. Resolves when each new
 * connection has made its first attempt.
 */
export async function syncStoredServers(
  hub: McpHub,
  store: Store,
  apiStdio: boolean,
  log?: (message: string) => void,
): Promise<void> {
  const stored = await store.mcpServers.list();
  const kept = new Set(stored.map((record) => record.id));
  for (const entry of hub.list()) {
    if (entry.origin === "api" && !kept.has(entry.id)) await hub.remove(entry.name);
  }
  const starting: Promise<void>[] = [];
  for (const record of stored) {
    const current = hub.list().find((entry) => entry.id === record.id);
    const parsed = McpServerConfig.safeParse(record.config);
    const running = current && McpServerConfig.safeParse(current.config);
    const same =
      current?.name === record.name &&
      parsed.success &&
      running?.success &&
      JSON.stringify(running.data) === JSON.stringify(parsed.data);
    if (same) continue;
    if (current) await hub.remove(current.name);
    const admitted = admit(hub, record, apiStdio, log);
    if (admitted)
      starting.push(hub.add(record.name, admitted, "api", record.id).connection.start());
  }
  await Promise.all(starting);
}

/** A stored server's config if it may start here; otherwise why not is logged. */
function admit(
  hub: McpHub,
  stored: McpServerRecord,
  apiStdio: boolean,
  log?: (message: string) => void,
): McpServerConfig | null {
  const parsed = McpServerConfig.safeParse(stored.config);
  const clash = hub.get(stored.name);
  const why = !parsed.success
    ? "its config is invalid"
    : clash && clash.id !== stored.id
      ? "the config file has a server of that name"
      : parsed.data.command !== undefined && !apiStdio
        ? "stdio servers from the API are off on this server (tools.mcp.api_stdio)"
        : null;
  if (parsed.success && why === null) return parsed.data;
  log?.(`MCP server '${stored.name}' (${stored.id}) not started: ${why}`);
  return null;
}
