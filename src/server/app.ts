import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { HoldfastConfig } from "../config/config-file.js";
import { ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { AgentFolderService } from "../service/agent-folder-service.js";
import type { AgentMaintenanceService } from "../service/agent-maintenance-service.js";
import type { AgentService } from "../service/agent-service.js";
import type { ArchiveService } from "../service/archive-service.js";
import type { BlockService } from "../service/block-service.js";
import type { CatalogService } from "../service/catalog-service.js";
import type { ChainService } from "../service/chain-service.js";
import type { ConversationService } from "../service/conversation-service.js";
import type { FolderService } from "../service/folder-service.js";
import type { ForkService } from "../service/fork-service.js";
import type { McpServerService } from "../service/mcp-server-service.js";
import type { MemoryService } from "../service/memory-service.js";
import type { MessageQueryService } from "../service/message-query-service.js";
import type { MessageService } from "../service/message-service.js";
import type { ReplayService } from "../service/replay-service.js";
import type { RunService } from "../service/run-service.js";
import type { ScheduleService } from "../service/schedule-service.js";
import type { SessionService } from "../service/session-service.js";
import type { StepService } from "../service/step-service.js";
import type { ToolService } from "../service/tool-service.js";
import { type AppEnv, authenticate } from "./auth.js";
import { refuseDeepBodies } from "./body-depth.js";
import { refuseUnstorableText } from "./body-text.js";
import { consoleRoutes, DEFAULT_CONSOLE_DIR } from "./console-assets.js";
import { body, errorResponse } from "./error-response.js";
import { drainUnreadBody, limitBodySize } from "./request-body.js";
import { type LogSink, requestLog } from "./request-log.js";
import { agentFolderRoutes } from "./routes/agent-folders.js";
import { agentMaintenanceRoutes } from "./routes/agent-maintenance.js";
import { agentTypeRoutes } from "./routes/agent-types.js";
import { agentRoutes } from "./routes/agents.js";
import { archiveRoutes } from "./routes/archives.js";
import { blockRoutes } from "./routes/blocks.js";
import { catalogRoutes } from "./routes/catalog.js";
import { chainRoutes } from "./routes/chains.js";
import { conversationRoutes } from "./routes/conversations.js";
import { folderRoutes } from "./routes/folders.js";
import { globalMessageRoutes } from "./routes/global-messages.js";
import { healthRoutes } from "./routes/health.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { memoryRoutes } from "./routes/memory.js";
import { messageRoutes } from "./routes/messages.js";
import { modelRoutes } from "./routes/models.js";
import { refusedRoutes } from "./routes/refusals.js";
import { replayForkRoutes } from "./routes/replay-fork.js";
import { runRoutes } from "./routes/runs.js";
import { scheduleRoutes } from "./routes/schedule.js";
import { sessionRoutes } from "./routes/sessions.js";
import { stepRoutes } from "./routes/steps.js";
import { toolRoutes } from "./routes/tools.js";

/** The operations behind the agent routes; without them the app serves health and types. */
export interface Services {
  agents: AgentService;
  messages: MessageService;
  memory: MemoryService;
  /** Letta's `/v1/blocks`: blocks as entities, shared by agents. */
  blocks?: BlockService;
  tools: ToolService;
  /** Holdfast's own session routes (resume, inspect, transfer). */
  sessions?: SessionService;
  /** Runs: status, messages, re-attaching to a stream. */
  runs?: RunService;
  /** Chains of agents and their runs. */
  chains?: ChainService;
  /** MCP servers as tool sources (Letta's `/v1/mcp-servers`). */
  mcpServers?: McpServerService;
  /** Replaying runs against today's config, forking agents at a point of their history. */
  replay?: ReplayService;
  forks?: ForkService;
  /** Agent files, the context window, resetting the context. */
  maintenance?: AgentMaintenanceService;
  /** Tags, models and tool search across the server. */
  catalog?: CatalogService;
  /** Step records: `/v1/steps`, a run's steps and usage; and `messages/async`. */
  steps?: StepService;
  /** Scheduled messages (`/v1/agents/{id}/schedule`). */
  schedules?: ScheduleService;
  /** Letta's `/v1/conversations` (decision 026). */
  conversations?: ConversationService;
  /** Letta's `/v1/messages` across agents, and `summarize`. */
  messageQueries?: MessageQueryService;
  /** Folders and files (`/v1/folders`), and agents' folders and open files. */
  folders?: FolderService;
  agentFolders?: AgentFolderService;
  /** Letta's archives (`/v1/archives`) and `POST /v1/passages/search`. */
  archives?: ArchiveService;
}

export interface AppOptions {
  config: HoldfastConfig;
  version: string;
  services?: Services;
  /** Bearer token → project; `null` (the default) means no auth, one default project. */
  tokens?: ReadonlyMap<string, string> | null;
  /** Request lines; nothing is logged without it. */
  logRequest?: LogSink;
  /** Called with every unexpected error before it becomes a 500. */
  onUnexpectedError?: (error: unknown) => void;
  /** The largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /** Served at `GET /metrics` as the config's `observability.metrics` says; none without. */
  metrics?: { scrape(): Promise<string>; readonly contentType: string };
  /** The built web console (`dist/console` by default); `null` serves none. */
  consoleDir?: string | null;
  /**
   * The store's durability barrier (`Store.flush`): every answer, and every frame of a stream,
   * waits for it, so nothing a client is told can be lost on power loss (decision 030).
   */
  flush?: () => Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|\?|#|$)/i;

/**
 * URL parsing resolves `.` and `..` segments, `%2E%2E` included, before routing: left alone,
 * `DELETE /v1/agents/A/archival-memory/%2E%2E` would delete agent A itself. Such a path is
 * refused as it arrived, before anything resolves it.
 */
const refuseDotSegments: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url;
  const path = raw.replace(/^[a-z]+:\/\/[^/]+/i, "");
  if (DOT_SEGMENT.test(path)) {
    return c.json(body("BAD_REQUEST", "path segments '.' and '..' are not allowed"), 400);
  }
  return next();
};

/**
 * The HTTP application: every route, validated by zod schemas that also generate
 * `/openapi.json`. It holds no sockets; `serve.ts` binds it to a port.
 */
export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const log = options.onUnexpectedError ?? (() => {});
  const app = new OpenAPIHono<AppEnv>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) {
        throw new ValidationError("invalid request", fieldErrorsFromZod(result.error));
      }
    },
  });
  app.onError((error, c) => errorResponse(c, error, log));
  app.notFound((c) => c.json(body("NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`), 404));
  // First in, last out: whatever the request committed, or read of what others committed, is
  // on disk before the answer leaves (streams wait per frame, in event-stream.ts).
  const flush = options.flush ?? (async () => {});
  app.use(async (c, next) => {
    c.set("flush", flush);
    await next();
    await flush();
  });
  if (options.logRequest) app.use(requestLog(options.logRequest));
  app.use(drainUnreadBody);
  app.use(refuseDotSegments);
  const metricsAccess = options.config.observability.metrics;
  const metrics = options.metrics;
  const serveMetrics = () =>
    metrics &&
    app.get("/metrics", async (c) =>
      c.body(await metrics.scrape(), 200, { "content-type": metrics.contentType }),
    );
  // Registered before auth, an open /metrics answers without a token.
  if (metricsAccess === "open") serveMetrics();
  app.use(authenticate(options.tokens ?? null));
  if (metricsAccess === "token") serveMetrics();
  const maxSize = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use(
    limitBodySize(maxSize, (c) =>
      c.json(body("PAYLOAD_TOO_LARGE", `the request body is over ${maxSize} bytes`), 413),
    ),
  );
  app.use(refuseDeepBodies);
  app.use(refuseUnstorableText);

  healthRoutes(app, options.version);
  agentTypeRoutes(app, options.config);
  refusedRoutes(app);
  modelRoutes(app, options.config);
  if (options.services) {
    // Before the agent routes: `/v1/agents/import` must not be read as an agent id.
    if (options.services.maintenance) agentMaintenanceRoutes(app, options.services.maintenance);
    agentRoutes(app, options.services.agents);
    // Before the tool routes: `POST /v1/tools/search` is a search, not a tool to create.
    if (options.services.catalog) catalogRoutes(app, options.services.catalog);
    messageRoutes(app, options.services.messages);
    memoryRoutes(app, options.services.memory);
    if (options.services.blocks) blockRoutes(app, options.services.blocks);
    toolRoutes(app, options.services.tools);
    if (options.services.sessions) sessionRoutes(app, options.services.sessions);
    if (options.services.runs) runRoutes(app, options.services.runs);
    if (options.services.chains) chainRoutes(app, options.services.chains);
    if (options.services.mcpServers) mcpServerRoutes(app, options.services.mcpServers);
    if (options.services.steps) stepRoutes(app, options.services.steps, options.services.messages);
    if (options.services.schedules) scheduleRoutes(app, options.services.schedules);
    const { conversations, messageQueries, messages, runs } = options.services;
    if (conversations) conversationRoutes(app, { conversations, messages, runs });
    if (messageQueries) globalMessageRoutes(app, messageQueries);
    if (options.services.folders) folderRoutes(app, options.services.folders);
    if (options.services.agentFolders) agentFolderRoutes(app, options.services.agentFolders);
    if (options.services.archives) archiveRoutes(app, options.services.archives);
    const { replay, forks } = options.services;
    if (replay && forks) replayForkRoutes(app, { replay, forks });
  }

  // Built at the first request, once every route is registered, then served as it was: making
  // it walks every route's schemas (~65 ms here, over 140 ms the first time), on the event loop.
  let openApiDocument: string | null = null;
  app.get("/openapi.json", (c) => {
    openApiDocument ??= JSON.stringify(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "Holdfast",
          version: options.version,
          description: "Stateful AI agents: Letta-compatible REST + SSE, durable, typed.",
        },
      }),
    );
    return c.body(openApiDocument, 200, { "content-type": "application/json" });
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));
  const consoleDir = options.consoleDir === undefined ? DEFAULT_CONSOLE_DIR : options.consoleDir;
  if (consoleDir !== null) consoleRoutes(app, consoleDir);
  return app;
}
