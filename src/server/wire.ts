import { type ChainClaims, soleProcess } from "../chains/chain-claims.js";
import { ChainRunner } from "../chains/chain-runner.js";
import { systemClock } from "../core/clock.js";
import { productionIds } from "../core/ids.js";
import { checkEmbeddingReady } from "../llm/embedding-model.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import type { Engine } from "../runtime/engine.js";
import type { ServiceContext } from "../service/agent-access.js";
import { AgentFolderService } from "../service/agent-folder-service.js";
import { AgentMaintenanceService } from "../service/agent-maintenance-service.js";
import { AgentService } from "../service/agent-service.js";
import { ArchiveService } from "../service/archive-service.js";
import { BlockService } from "../service/block-service.js";
import { CatalogService } from "../service/catalog-service.js";
import { ChainService } from "../service/chain-service.js";
import { ConversationService } from "../service/conversation-service.js";
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
import type { DurabilityInForce } from "../storage/sqlite/connection.js";
import type { Store } from "../storage/store.js";
import type { Assembled, AssembleOptions, PostgresInUse } from "./assemble.js";
import { runtimeParts } from "./runtime-parts.js";
import { syncStoredServers } from "./tool-sources.js";

/** What a store in PostgreSQL adds to the wiring: where it is, and the cluster's parts on Restate. */
export interface PostgresWiring {
  postgres: PostgresInUse;
  restate: ClusterWiring | null;
}

/** On Restate: the engine, and what the processes of a cluster share through PostgreSQL. */
export interface ClusterWiring {
  openEngine(store: Store): Promise<Engine>;
  /** Calls `sync` whenever another process changed the stored MCP servers. */
  followMcpChanges(sync: () => Promise<void>): Promise<{ close(): Promise<void> }>;
  announceMcpChange(): Promise<void>;
  /** Which API process drives each chain run. */
  openClaims(): Promise<ChainClaims>;
}

/** Something held for the server's life (the data directory's lock, the schema's). */
interface HeldLock {
  release(): unknown;
}

/**
 * The runtime over `plainStore` and the services the API calls: the embedded engine, or on
 * Restate the cluster's.
 */
export async function wire(
  options: AssembleOptions,
  plainStore: Store,
  durability: DurabilityInForce | null,
  lock: HeldLock | null,
  onPostgres: PostgresWiring | null = null,
): Promise<Assembled> {
  const parts = await runtimeParts(options, plainStore);
  const { config, detection, web, hub, apiStdio, embeddings, store, modelFor, checkModel } = parts;
  const { metrics, tracing, folderVectors } = parts;
  const env = options.env ?? process.env;
  const postgres = onPostgres?.postgres ?? null;
  const cluster = onPostgres?.restate ?? null;
  const engine: Engine & Partial<Pick<EmbeddedEngine, "activeCount" | "mailboxDepth">> = cluster
    ? await cluster.openEngine(store)
    : new EmbeddedEngine(parts.engineOptions);
  // On Restate every process keeps its own MCP connections: a change stored here is announced.
  const mcpNews = cluster
    ? await cluster.followMcpChanges(() => syncStoredServers(hub, store, apiStdio))
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
    ...(cluster && { mcpServersChanged: () => cluster.announceMcpChange() }),
  };
  metrics.watch({
    activeAgents: () => engine.activeCount ?? 0,
    mailboxDepth: () => engine.mailboxDepth ?? 0,
  });
  const failedToResume = await engine.start();
  await embeddings.queue.start();
  await folderVectors.queue.start();
  // On Restate any number of API processes share the chain runs, one driving each.
  const claims = cluster ? await cluster.openClaims() : soleProcess;
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
