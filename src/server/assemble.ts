import { join } from "node:path";
import { soleProcess } from "../chains/chain-claims.js";
import { type ChainResumeFailure, ChainRunner } from "../chains/chain-runner.js";
import { PgChainClaims } from "../chains/pg-chain-claims.js";
import type { HoldfastConfig } from "../config/config-file.js";
import { systemClock } from "../core/clock.js";
import { productionIds } from "../core/ids.js";
import { checkEmbeddingReady } from "../llm/embedding-model.js";
import type { ModelAdapter } from "../llm/model.js";
import type { HoldfastMetrics } from "../observability/metrics.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import type { Embeddings } from "../runtime/embeddings.js";
import type { Engine } from "../runtime/engine.js";
import { announceMcpChange, followMcpChanges } from "../runtime/restate/mcp-news.js";
import { RestateEngine } from "../runtime/restate/restate-engine.js";
import type { ServiceContext } from "../service/agent-access.js";
import { AgentFolderService } from "../service/agent-folder-service.js";
import { AgentMaintenanceService } from "../service/agent-maintenance-service.js";
import { AgentService } from "../service/agent-service.js";
import { ArchiveService } from "../service/archive-service.js";
import { BlockService } from "../service/block-service.js";
import { CatalogService } from "../service/catalog-service.js";
import { ChainService } from "../service/chain-service.js";
import { ConversationService } from "../service/conversation-service.js";
import type { FolderEmbedding } from "../service/folder-embedding.js";
import { FolderService } from "../service/folder-service.js";
import { ForkService } from "../service/fork-service.js";
import { McpServerService } from "../service/mcp-server-service.js";
import { MemoryService } from "../service/memory-service.js";
import { MessageQueryService } from "../service/message-query-service.js";
import { MessageService } from "../service/message-service.js";
import { ReplayService } from "../service/replay-service.js";
import { RunService } from "../service/run-service.js";
import { ScheduleService } from "../service/schedule-service.js";
import { ScheduledMessageLoop } from "../service/scheduled-message-loop.js";
import { SessionService } from "../service/session-service.js";
import { StepService } from "../service/step-service.js";
import { ToolService } from "../service/tool-service.js";
import { DEFAULT_DURABILITY, type Durability } from "../storage/durability.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import { DEFAULT_POOL_SIZE, DEFAULT_SCHEMA } from "../storage/postgres/pool.js";
import { openPostgresStore, type PostgresStore } from "../storage/postgres/postgres-store.js";
import { type DatabaseLock, lockDatabase } from "../storage/postgres/writer-lock.js";
import type { DurabilityInForce } from "../storage/sqlite/connection.js";
import { type DataDirLock, lockDataDirOrThrow } from "../storage/sqlite/data-dir-lock.js";
import { openSqliteStore, type SqliteStore } from "../storage/sqlite/sqlite-store.js";
import type { Store } from "../storage/store.js";
import type { SandboxDetection } from "../tools/sandbox/sandbox.js";
import type { WebSettings } from "../tools/web/web-settings.js";
import type { Services } from "./app.js";
import { runtimeParts } from "./runtime-parts.js";
import { syncStoredServers } from "./tool-sources.js";

export interface AssembleOptions {
  config: HoldfastConfig;
  dataDir: string;
  /** `sqlite` (the default, in the data directory) or `memory` (nothing survives a restart). */
  store?: "sqlite" | "memory";
  /** How far a commit reaches before it is acknowledged (default `full`: the disk). */
  durability?: Durability;
  /**
   * Keep the data in PostgreSQL at this URL instead of SQLite (then `store` is ignored). The
   * schema's advisory lock replaces the data directory's lock: a second server on the same
   * database fails with `DatabaseInUseError`. `onLockLost` is told if that lock's connection
   * drops: the server must stop, since another may now take the database.
   */
  postgres?: { url: string; poolSize?: number; onLockLost?: (error: Error) => void };
  /**
   * Run agents as Restate virtual objects on workers (`holdfast worker`) instead of in this
   * process: operations go to Restate's ingress, events come over PostgreSQL (required). Any
   * number of API servers share the database then: no advisory lock is taken.
   */
  restate?: { ingressUrl: string; pgUrl: string };
  defaultModel: string;
  env?: NodeJS.ProcessEnv;
  /** Overrides how models are made (tests pass a scripted sim model). */
  modelFor?: (handle: string) => ModelAdapter;
  /**
   * How the shell runs, if already decided (tests); otherwise detected here from the config's
   * `sandbox.mode`, with the data directory hidden from sandboxed commands.
   */
  sandbox?: SandboxDetection;
  /** Server paths besides the data directory to hide from sandboxed commands (the config's). */
  hiddenPaths?: readonly string[];
  /** Told when a chain run's driver failed (it drives the run again after `retryMs`). */
  onChainError?: (runId: string, error: unknown, retryMs: number) => void;
  /** Told when an MCP server connects, fails or reconnects (secrets already removed). */
  onMcpEvent?: (message: string) => void;
  /**
   * Callers authenticate with bearer tokens (`HOLDFAST_TOKENS`): then, unless the config says
   * `tools.mcp.api_stdio: allow`, stdio MCP servers cannot be added through the API.
   */
  bearerTokens?: boolean;
  /** Backoff of failed embedding requests (tests shorten it); default 1 s doubling to 60 s. */
  embeddingRetry?: { baseMs: number; maxMs: number };
  /** Told when embedding an agent's memory fails (it is retried or waits for the next write). */
  onEmbeddingEvent?: (message: string) => void;
  /** Told when a scheduled message could not be sent (it is skipped, or fires again). */
  onScheduleEvent?: (message: string) => void;
  /** Trace export settings (`OTEL_EXPORTER_OTLP_ENDPOINT`); `env` is read when absent. */
  otelEnv?: NodeJS.ProcessEnv;
}

export interface Assembled {
  /** The config the server runs with: the shell is marked unavailable if there is no sandbox. */
  config: HoldfastConfig;
  /** The sandbox shell commands run in, or why the shell is not offered. */
  sandbox: SandboxDetection;
  /** What the web tools may reach, and the search provider if there is one. */
  web: WebSettings;
  /** Interrupted sessions that could not resume at start-up (they retry on next use). */
  failedToResume: { agentId: string; error: unknown }[];
  /** Chain runs that could not carry on at start-up (their chain changed); they failed. */
  chainsFailed: ChainResumeFailure[];
  services: Services;
  engine: Engine;
  /** The store with hybrid search (what the engine and services use). */
  store: Store;
  /** The background embedding of memory, and which models the config names. */
  embeddings: Embeddings;
  /** The background embedding of folders' chunks. */
  folderEmbedding: FolderEmbedding;
  /** What the SQLite store runs with, read back from SQLite; null for the other stores. */
  durability: DurabilityInForce | null;
  /** The PostgreSQL store's settings, when it is the store. */
  postgres: PostgresInUse | null;
  /** This server's Prometheus metrics (`GET /metrics`). */
  metrics: HoldfastMetrics;
  /** Drains the runtime, closes the store and gives up the data directory. */
  close(): Promise<void>;
}

/**
 * Wires the embedded engine: a store, the runtime over it, and the services the API calls.
 * A SQLite store first takes the data directory's lock, so a second server on the same
 * directory fails here with `DataDirInUseError`, before it touches the database; a PostgreSQL
 * store first takes its schema's advisory lock, failing with `DatabaseInUseError`.
 */
export async function assemble(options: AssembleOptions): Promise<Assembled> {
  if (options.postgres) return assemblePostgres(options, options.postgres);
  if (options.store === "memory") return wire(options, createInMemoryStore(), null, null);
  const lock = lockDataDirOrThrow(options.dataDir);
  let store: SqliteStore | undefined;
  try {
    const path = join(options.dataDir, "holdfast.db");
    store = await openSqliteStore(path, { durability: options.durability ?? DEFAULT_DURABILITY });
    return await wire(options, store, store.durabilityInForce(), lock);
  } catch (error) {
    await store?.close();
    lock.release();
    throw error;
  }
}

/** Where the PostgreSQL store keeps the data, without the URL's password. */
export interface PostgresInUse {
  server: string;
  schema: string;
  poolSize: number;
  durability: Durability;
}

async function assemblePostgres(
  options: AssembleOptions,
  settings: NonNullable<AssembleOptions["postgres"]>,
): Promise<Assembled> {
  const schema = DEFAULT_SCHEMA;
  const lost = settings.onLockLost ?? (() => undefined);
  // On Restate, Restate keeps one writer per agent: any number of API servers and workers.
  const lock = options.restate ? null : await lockDatabase(settings.url, schema, lost);
  let store: PostgresStore | undefined;
  try {
    const durability = options.durability ?? DEFAULT_DURABILITY;
    const poolSize = settings.poolSize ?? DEFAULT_POOL_SIZE;
    store = await openPostgresStore(settings.url, { schema, poolSize, durability });
    const where = new URL(settings.url);
    const server = `${where.host}${where.pathname}`;
    return await wire(options, store, null, lock, { server, schema, poolSize, durability });
  } catch (error) {
    await store?.close();
    await lock?.release();
    throw error;
  }
}

async function wire(
  options: AssembleOptions,
  plainStore: Store,
  durability: DurabilityInForce | null,
  lock: DataDirLock | DatabaseLock | null,
  postgres: PostgresInUse | null = null,
): Promise<Assembled> {
  const parts = await runtimeParts(options, plainStore);
  const { config, detection, web, hub, apiStdio, embeddings, store, modelFor, checkModel } = parts;
  const { metrics, tracing, folderVectors } = parts;
  const env = options.env ?? process.env;
  const engine: Engine & Partial<Pick<EmbeddedEngine, "activeCount" | "mailboxDepth">> =
    options.restate && postgres
      ? await RestateEngine.open({
          store,
          pgUrl: options.restate.pgUrl,
          schema: postgres.schema,
          ingressUrl: options.restate.ingressUrl,
          ids: productionIds,
        })
      : new EmbeddedEngine(parts.engineOptions);
  // On Restate every process keeps its own MCP connections: a change stored here is announced.
  const cluster = options.restate && postgres ? { url: options.restate.pgUrl, ...postgres } : null;
  const mcpNews = cluster
    ? await followMcpChanges(cluster.url, cluster.schema, () =>
        syncStoredServers(hub, store, apiStdio),
      )
    : null;
  const ctx: ServiceContext = {
    store,
    engine,
    config,
    ids: productionIds,
    clock: systemClock,
    defaultModel: options.defaultModel,
    modelFor,
    checkModel,
    checkEmbedding: (handle: string) => checkEmbeddingReady(handle, config.providers, env),
    embeddings,
    folderEmbedding: folderVectors,
    ...(cluster && {
      mcpServersChanged: () => announceMcpChange(cluster.url, cluster.schema),
    }),
  };
  metrics.watch({
    activeAgents: () => engine.activeCount ?? 0,
    mailboxDepth: () => engine.mailboxDepth ?? 0,
  });
  const failedToResume = await engine.start();
  await embeddings.queue.start();
  await folderVectors.queue.start();
  // On Restate any number of API processes share the chain runs, one driving each.
  const claims =
    options.restate && postgres
      ? await PgChainClaims.open(options.restate.pgUrl, postgres.schema)
      : soleProcess;
  const chains = new ChainRunner(
    { store, engine, config, ids: productionIds, clock: systemClock },
    options.onChainError,
    claims,
  );
  const chainsFailed = await chains.resume();
  chains.sweep();
  const messages = new MessageService(ctx);
  const scheduled = new ScheduledMessageLoop(
    store,
    systemClock,
    (projectId, agentId, body) => messages.sendAsync(projectId, agentId, body),
    options.onScheduleEvent,
  );
  scheduled.start();
  return {
    config,
    sandbox: detection,
    web,
    failedToResume,
    chainsFailed,
    services: {
      agents: new AgentService(ctx),
      maintenance: new AgentMaintenanceService(ctx),
      catalog: new CatalogService(ctx),
      messages,
      memory: new MemoryService(ctx),
      blocks: new BlockService(ctx),
      tools: new ToolService(ctx),
      sessions: new SessionService(ctx),
      runs: new RunService(ctx),
      replay: new ReplayService(ctx),
      forks: new ForkService(ctx),
      chains: new ChainService(ctx, chains),
      mcpServers: new McpServerService(ctx, hub, apiStdio),
      steps: new StepService(ctx),
      schedules: new ScheduleService(ctx, scheduled),
      conversations: new ConversationService(ctx),
      messageQueries: new MessageQueryService(ctx),
      folders: new FolderService(ctx),
      agentFolders: new AgentFolderService(ctx),
      archives: new ArchiveService(ctx),
    },
    engine,
    store,
    embeddings,
    folderEmbedding: folderVectors,
    durability,
    postgres,
    metrics,
    close: async () => {
      chains.shutdown();
      await claims.close();
      scheduled.stop();
      await engine.shutdown();
      await embeddings.queue.stop();
      await folderVectors.queue.stop();
      await tracing?.shutdown();
      await mcpNews?.close();
      await hub.closeAll();
      await store.close();
      await lock?.release();
    },
  };
}
