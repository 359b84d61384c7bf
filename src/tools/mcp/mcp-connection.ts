import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Clock } from "../../core/clock.js";
import { VERSION } from "../../core/version.js";
import {
  DEFAULT_MCP_TIMEOUT_MS,
  type McpServerConfig,
  redactSecrets,
} from "./mcp-server-config.js";

/** Where a connection stands; `reason` is already free of secrets. */
export type McpConnectionState =
  | { state: "connecting" }
  | { state: "connected" }
  | { state: "failed"; reason: string; retryInMs: number }
  | { state: "closed" };

export interface McpConnectionOptions {
  name: string;
  config: McpServerConfig;
  clock: Clock;
  /** Told when the tool list or the state changed. */
  onChange(): void;
  /** Told of state changes worth a log line (secrets removed). */
  log?(message: string): void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
const STDERR_TAIL_CHARS = 1_000;
const PING_TIMEOUT_MS = 5_000;
/** A server listing more tools than this is cut off: no model can choose among so many. */
const MAX_TOOLS = 1_000;

/** The parts of the MCP SDK a connection uses. */
interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
  ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema;
}

let sdkLoading: Promise<McpSdk> | undefined;

/**
 * The SDK loads with the first connection: with ajv and a zod of its own it is a good part of a
 * server's start-up, and most servers connect to no MCP server.
 */
function loadSdk(): Promise<McpSdk> {
  sdkLoading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, stdio, http, types]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return sdkLoading;
}

/**
 * A live connection to one MCP server. It connects in the background, keeps the server's last
 * known tools while it reconnects (with exponential backoff) after the server exits or stops
 * answering, and never throws out of its lifecycle: a failure becomes its state, and a call
 * made meanwhile fails with a readable message.
 */
export class McpConnection {
  private sdk: McpSdk | null = null;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private current: McpConnectionState = { state: "connecting" };
  private knownTools: McpTool[] = [];
  private retryMs = FIRST_RETRY_MS;
  private stderrTail = "";
  private readonly stopped = new AbortController();

  constructor(private readonly options: McpConnectionOptions) {}

  get state(): McpConnectionState {
    return this.current;
  }

  /** The server's tools as last listed; empty until the first connection. */
  get tools(): readonly McpTool[] {
    return this.knownTools;
  }

  /** The process id of a stdio server while it runs. */
  get pid(): number | null {
    const stdio = this.sdk?.StdioClientTransport;
    return stdio && this.transport instanceof stdio ? this.transport.pid : null;
  }

  get timeoutMs(): number {
    return this.options.config.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS;
  }

  /** Starts connecting; resolves once the first attempt has succeeded or failed. */
  start(): Promise<void> {
    return this.connect();
  }

  /** Calls a tool; throws an Error with a readable, secret-free message when it cannot. */
  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.current.state !== "connected") {
      const why = this.current.state === "failed" ? ` (${this.current.reason}); reconnecting` : "";
      throw new Error(`MCP server '${this.options.name}': not connected${why}`);
    }
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.timeoutMs + 1_000,
      });
      return result as CallToolResult;
    } catch (error) {
      // The server answered with a protocol error: the connection is fine. Anything else but
      // our own abort (exit, refused, reset) means it is gone: reconnect.
      const answered = this.sdk && error instanceof this.sdk.McpError;
      if (!answered && !signal.aborted) this.lost(client, error);
      // Cut short on our side (a timeout): a server that no longer answers a ping is hung.
      if (signal.aborted) this.checkAlive(client);
      throw new Error(`MCP server '${this.options.name}': ${this.describe(error)}`);
    }
  }

  /**
   * Lists the server's tools again now (Letta's refresh); false when it is not connected (it
   * lists them anyway when it reconnects).
   */
  async relist(): Promise<boolean> {
    const client = this.client;
    if (!client || this.current.state !== "connected") return false;
    await this.refresh(client);
    return this.client === client;
  }

  /** Stops the server (or the HTTP session) and any reconnection. */
  async close(): Promise<void> {
    this.stopped.abort();
    this.current = { state: "closed" };
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    this.setState({ state: "connecting" });
    let sdk: McpSdk;
    try {
      sdk = await loadSdk();
    } catch (error) {
      sdkLoading = undefined;
      if (!this.stopped.signal.aborted) this.retryLater(`the MCP SDK did not load: ${error}`);
      return;
    }
    if (this.stopped.signal.aborted) return;
    this.sdk = sdk;
    const transport = this.createTransport(sdk);
    const client = new sdk.Client({ name: "holdfast", version: VERSION });
    client.onclose = () => this.lost(client, new Error("the connection closed"));
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () =>
      this.refresh(client),
    );
    this.transport = transport;
    this.client = client;
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
      const tools = await this.listTools(client);
      if (this.client !== client) return;
      this.knownTools = tools;
      this.retryMs = FIRST_RETRY_MS;
      this.setState({ state: "connected" });
      this.options.log?.(`MCP server '${this.options.name}': ${tools.length} tools`);
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** The connection `client` failed: close it and try again after the backoff. */
  private lost(client: Client, error: unknown): void {
    if (this.client !== client || this.stopped.signal.aborted) return;
    this.client = null;
    void client.close().catch(() => {});
    this.retryLater(this.describe(error));
  }

  /** Reports the failure, then connects again after the backoff. */
  private retryLater(reason: string): void {
    const retryInMs = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.setState({ state: "failed", reason, retryInMs });
    this.options.log?.(
      `MCP server '${this.options.name}' failed (${reason}); retry in ${retryInMs} ms`,
    );
    this.options.clock.sleep(retryInMs, this.stopped.signal).then(
      () => this.connect(),
      () => {},
    );
  }

  /** Every tool of the server, over all pages of its list. */
  private async listTools(client: Client): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.timeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return tools;
  }

  private checkAlive(client: Client): void {
    client.ping({ timeout: PING_TIMEOUT_MS }).catch((error: unknown) => this.lost(client, error));
  }

  private async refresh(client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client);
      if (this.client !== client) return;
      this.knownTools = tools;
      this.options.onChange();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private createTransport(sdk: McpSdk): Transport {
    const { config } = this.options;
    if (config.url) {
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
      });
    }
    this.stderrTail = "";
    const transport = new sdk.StdioClientTransport({
      command: config.command ?? "",
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    // The server's last words explain an exit better than "connection closed".
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private setState(state: McpConnectionState): void {
    this.current = state;
    this.options.onChange();
  }

  private describe(error: unknown): string {
    // `fetch failed` says little; its cause (ECONNREFUSED, ECONNRESET…) says what happened.
    const cause =
      error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
    const code = typeof cause?.code === "string" ? ` (${cause.code})` : "";
    const message = (error instanceof Error ? error.message : String(error)) + code;
    const stderr = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
    const detail = stderr && !this.client ? `${message} (stderr: ${stderr})` : message;
    return redactSecrets(detail, this.options.config);
  }
}
