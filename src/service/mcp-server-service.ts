import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { McpServerRecord } from "../records/mcp-server.js";
import type { McpHub, McpServerEntry } from "../tools/mcp/mcp-hub.js";
import {
  type McpServerConfig,
  McpServerName,
  mcpPackName,
} from "../tools/mcp/mcp-server-config.js";
import { resultOf } from "../tools/mcp/mcp-tool.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import type { ServiceContext } from "./agent-access.js";
import { toolView } from "./letta-views.js";
import {
  configFromLetta,
  type LettaMcpConfig,
  type McpServerView,
  mcpServerView,
} from "./mcp-server-views.js";
import type { ToolView } from "./tool-service.js";

/** Why a stdio server cannot be added through the API on this server. */
export const STDIO_FROM_API_OFF =
  "stdio MCP servers cannot be added through the API on this server: each runs a command as " +
  "the server's OS user, outside the sandbox. Declare it in holdfast.yaml (mcp_servers), use " +
  "streamable_http, or set tools.mcp.api_stdio: allow (the default only without HOLDFAST_TOKENS)";

/**
 * MCP servers through Letta's routes: those of the config file (shown, never changed here) and
 * those added through the API, which are stored and reconnected at start-up. Adding, changing
 * or removing one changes the tool catalogue; agents see it on their next turn. Servers, like
 * the tool catalogue, belong to the whole Holdfast server, not to one project.
 */
export class McpServerService {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly hub: McpHub,
    /** Whether stdio servers may be added or changed here (each runs a command on this host). */
    private readonly stdioAllowed: boolean,
  ) {}

  list(): McpServerView[] {
    return this.hub.list().map((entry) => this.view(entry));
  }

  get(serverId: string): McpServerView {
    return this.view(this.require(serverId));
  }

  /** Adds, stores and connects a server; answers once its first connection attempt is over. */
  async create(name: string, letta: LettaMcpConfig): Promise<McpServerView> {
    this.checkName(name);
    const config = configFromLetta(letta);
    this.checkTransport(config);
    const now = new Date(this.ctx.clock.now()).toISOString();
    const record: McpServerRecord = {
      id: this.ctx.ids.next("mcp_server"),
      name,
      config,
      created_at: now,
      updated_at: now,
    };
    await this.ctx.store.mcpServers.put(record);
    const entry = this.hub.add(name, config, "api", record.id);
    await entry.connection.start();
    await this.ctx.mcpServersChanged?.();
    return this.view(entry);
  }

  /** Changes a server's config or name; it reconnects with the new one. */
  async update(
    serverId: string,
    change: { server_name?: string | null | undefined; config: LettaMcpConfig },
  ): Promise<McpServerView> {
    const entry = this.requireOwn(serverId, "changed");
    const name = change.server_name ?? entry.name;
    if (name !== entry.name) this.checkName(name);
    const config = configFromLetta(change.config, entry.config);
    this.checkTransport(config);
    const stored = (await this.ctx.store.mcpServers.list()).find((s) => s.id === entry.id);
    const now = new Date(this.ctx.clock.now()).toISOString();
    await this.ctx.store.mcpServers.put({
      id: entry.id,
      name,
      config,
      created_at: stored?.created_at ?? now,
      updated_at: now,
    });
    await this.hub.remove(entry.name);
    const replaced = this.hub.add(name, config, "api", entry.id);
    await replaced.connection.start();
    await this.ctx.mcpServersChanged?.();
    return this.view(replaced);
  }

  async delete(serverId: string): Promise<void> {
    const entry = this.requireOwn(serverId, "deleted");
    await this.ctx.store.mcpServers.delete(entry.id);
    await this.hub.remove(entry.name);
    await this.ctx.mcpServersChanged?.();
  }

  /** The server's tools as Letta's tools; attach them to agents by their `id`. */
  tools(serverId: string): ToolView[] {
    const entry = this.require(serverId);
    return this.declarations(entry).map((tool) => toolView(tool));
  }

  tool(serverId: string, toolId: string): ToolView {
    const entry = this.require(serverId);
    const tools = this.declarations(entry);
    const found = tools.find((tool) => toolId === `tool-${tool.name}` || toolId === tool.name);
    if (!found)
      throw new NotFoundError(
        "tool",
        toolId,
        tools.map((tool) => `tool-${tool.name}`),
      );
    return toolView(found);
  }

  /**
   * Letta's `mcp_run_tool`: calls one of the server's tools directly, outside any agent (no
   * agent type, rule or approval applies: the caller is the person deciding). Arguments are
   * checked against the tool's schema first (a 422 naming the field); the server's answer,
   * error or not, is the result, as Letta's `ToolExecutionResult`.
   */
  async runTool(serverId: string, toolId: string, args: Record<string, unknown>) {
    const entry = this.require(serverId);
    const declared = this.tool(serverId, toolId).name;
    const checked = this.ctx.config.catalogue.tools.get(declared)?.parameters.safeParse(args);
    if (checked && !checked.success) {
      throw new ValidationError(
        `invalid arguments for '${declared}'`,
        fieldErrorsFromZod(checked.error, ["args"]),
      );
    }
    const mcpName = declared.slice((entry.config.tool_prefix ?? "").length);
    const signal = AbortSignal.timeout(entry.connection.timeoutMs);
    const result = await entry.connection.call(mcpName, args, signal).then(resultOf, (error) => ({
      status: "error" as const,
      output: error instanceof Error ? error.message : String(error),
    }));
    return {
      status: result.status,
      func_return: result.output,
      stdout: null,
      stderr: null,
      agent_state: null,
      sandbox_config_fingerprint: null,
    };
  }

  /**
   * Letta's refresh: lists the server's tools again and says which were added, changed (their
   * description or schema) or deleted. Agents see the new list on their next turn. Letta's
   * `agent_id` (attach what was added to that agent) is refused: attach tools by id instead.
   */
  async refresh(serverId: string, agentId: string | undefined) {
    if (agentId !== undefined) {
      const message =
        "refresh does not attach tools here; attach each with PATCH /v1/agents/{agent_id}/tools/attach/{tool_id}";
      throw new ValidationError(message, [{ path: "agent_id", message }]);
    }
    const entry = this.require(serverId);
    const shape = (tools: ToolDeclaration[]) =>
      new Map(tools.map((t) => [t.name, JSON.stringify([t.description, t.jsonSchema ?? null])]));
    const before = shape(this.declarations(entry));
    if (!(await entry.connection.relist())) {
      const state = this.hub.status(entry.name)?.state;
      const why = state?.state === "failed" ? `: ${state.reason}` : "";
      throw new ConflictError(`MCP server '${entry.name}' is not connected${why}`);
    }
    const after = shape(this.declarations(entry));
    return {
      added: [...after.keys()].filter((name) => !before.has(name)),
      updated: [...after].filter(([n, s]) => before.has(n) && before.get(n) !== s).map(([n]) => n),
      deleted: [...before.keys()].filter((name) => !after.has(name)),
    };
  }

  private declarations(entry: McpServerEntry): ToolDeclaration[] {
    const { catalogue } = this.ctx.config;
    const names = catalogue.packs.get(mcpPackName(entry.name)) ?? [];
    return names.flatMap((name) => catalogue.tools.get(name) ?? []);
  }

  private view(entry: McpServerEntry): McpServerView {
    const status = this.hub.status(entry.name);
    if (!status) throw new NotFoundError("MCP server", entry.id);
    return mcpServerView(entry.id, entry, status);
  }

  /** A server by id or by name; a 404 naming the known ids. */
  private require(serverId: string): McpServerEntry {
    const entries = this.hub.list();
    const entry = entries.find((e) => e.id === serverId) ?? this.hub.get(serverId);
    if (!entry)
      throw new NotFoundError(
        "MCP server",
        serverId,
        entries.map((e) => e.id),
      );
    return entry;
  }

  private requireOwn(serverId: string, what: string): McpServerEntry {
    const entry = this.require(serverId);
    if (entry.origin === "config") {
      const message = `MCP server '${entry.name}' is declared in the config file; it is ${what} there`;
      throw new ValidationError(message, [{ path: "mcp_server_id", message }]);
    }
    return entry;
  }

  private checkTransport(config: McpServerConfig): void {
    if (config.command === undefined || this.stdioAllowed) return;
    throw new ValidationError(STDIO_FROM_API_OFF, [
      { path: "config.mcp_server_type", message: STDIO_FROM_API_OFF },
    ]);
  }

  private checkName(name: string): void {
    const bad = McpServerName.safeParse(name).error?.issues[0]?.message;
    if (bad)
      throw new ValidationError(`invalid server name '${name}'`, [
        { path: "server_name", message: bad },
      ]);
    if (this.hub.get(name)) throw new ConflictError(`an MCP server named '${name}' exists`);
  }
}
