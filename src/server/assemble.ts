import { mkdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { type ChainResumeFailure, ChainRunner } from "../chains/chain-runner.js";
import type { HoldfastConfig } from "../config/config-file.js";
import { prepareSandbox, withSandbox } from "../config/sandbox-section.js";
import { prepareWebTools } from "../config/web-section.js";
import { systemClock } from "../core/clock.js";
import { randomIds } from "../core/ids.js";
import { createModel } from "../llm/create-model.js";
import { parseModelHandle } from "../llm/handle.js";
import type { ModelAdapter } from "../llm/model.js";
import { checkProviderReady } from "../llm/provider-settings.js";
import { providerLimiters } from "../llm/rate-limit.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import type { ServiceContext } from "../service/agent-access.js";
import { AgentMaintenanceService } from "../service/agent-maintenance-service.js";
import { AgentService } from "../service/agent-service.js";
import { CatalogService } from "../service/catalog-service.js";
import { ChainService } from "../service/chain-service.js";
import { ForkService } from "../service/fork-service.js";
import { McpServerService } from "../service/mcp-server-service.js";
import { MemoryService } from "../service/memory-service.js";
import { MessageService } from "../service/message-service.js";
import { ReplayService } from "../service/replay-service.js";
import { RunService } from "../service/run-service.js";
import { SessionService } from "../service/session-service.js";
import { ToolService } from "../service/tool-service.js";
import { DEFAULT_DURABILITY, type Durability } from "../storage/durability.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { DurabilityInForce } from "../storage/sqlite/connection.js";
import { type DataDirLock, lockDataDirOrThrow } from "../storage/sqlite/data-dir-lock.js";
import { openSqliteStore, type SqliteStore } from "../storage/sqlite/sqlite-store.js";
import type { Store } from "../storage/store.js";
import type { SandboxDetection } from "../tools/sandbox/sandbox.js";
import type { WebSettings } from "../tools/web/web-settings.js";
import type { Services } from "./app.js";
import { startToolSources } from "./tool-sources.js";

export interface AssembleOptions {
  config: HoldfastConfig;
  dataDir: string;
  /** `sqlite` (the default, in the data directory) or `memory` (nothing survives a restart). */
  store?: "sqlite" | "memory";
  /** How far a SQLite commit reaches before it is acknowledged (default `full`: the disk). */
  durability?: Durability;
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
  engine: EmbeddedEngine;
  store: Store;
  /** What the SQLite store runs with, read back from SQLite; null for the memory store. */
  durability: DurabilityInForce | null;
  /** Drains the runtime, closes the store and gives up the data directory. */
  close(): Promise<void>;
}

/**
 * Wires the embedded engine: a store, the runtime over it, and the services the API calls.
 * A SQLite store first takes the data directory's lock, so a second server on the same
 * directory fails here with `DataDirInUseError`, before it touches the database.
 */
export async function assemble(options: AssembleOptions): Promise<Assembled> {
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

async function wire(
  options: AssembleOptions,
  store: Store,
  durability: DurabilityInForce | null,
  lock: DataDirLock | null,
): Promise<Assembled> {
  const { dataDir } = options;
  const env = options.env ?? process.env;
  const prepared = options.sandbox
    ? { config: withSandbox(options.config, options.sandbox), detection: options.sandbox }
    : await prepareSandbox(options.config, [dataDir, ...(options.hiddenPaths ?? [])]);
  const { detection } = prepared;
  // Without a search provider (or its key) web_search is withheld, with the reason.
  const { config: withWeb, web } = prepareWebTools(prepared.config, env);
  const apiStdio = stdioFromApiAllowed(withWeb, options.bearerTokens === true);
  const sources = await startToolSources({
    config: withWeb,
    apiStdio,
    store,
    sandbox: detection.ok ? detection.sandbox : null,
    web,
    clock: systemClock,
    ...(options.onMcpEvent ? { log: options.onMcpEvent } : {}),
  });
  const { config, hub } = sources;
  const models = new Map<string, ModelAdapter>();
  // Every agent's calls to one provider share its limits, whichever model they name.
  const limiterFor = providerLimiters(config.providers, systemClock);
  const modelFor =
    options.modelFor ??
    ((handle: string) => {
      let model = models.get(handle);
      if (!model) {
        const limiter = limiterFor(parseModelHandle(handle).provider);
        model = createModel(handle, {
          settings: config.providers,
          env,
          ...(limiter && { limiter }),
        });
        models.set(handle, model);
      }
      return model;
    });
  const checkModel = (handle: string) => {
    try {
      parseModelHandle(handle);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return checkProviderReady(handle, config.providers, env);
  };
  const engine = new EmbeddedEngine({
    store,
    config,
    ids: randomIds,
    tools: sources.catalogue.runnable,
    modelFor,
    defaultModel: options.defaultModel,
    workspaceFor: (record, isolation) => {
      const type = config.registry.get(record.agent_type);
      const base = type?.isolation.workspace_root ?? "workspaces";
      const root = resolve(isAbsolute(base) ? base : join(dataDir, base), record.id);
      mkdirSync(root, { recursive: true });
      return { root, readOnly: isolation.read_only, network: isolation.network };
    },
    clock: systemClock,
  });
  const ctx: ServiceContext = {
    store,
    engine,
    config,
    ids: randomIds,
    clock: systemClock,
    defaultModel: options.defaultModel,
    modelFor,
    checkModel,
  };
  const failedToResume = await engine.start();
  const chains = new ChainRunner(
    { store, engine, config, ids: randomIds, clock: systemClock },
    options.onChainError,
  );
  const chainsFailed = await chains.resume();
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
      messages: new MessageService(ctx),
      memory: new MemoryService(ctx),
      tools: new ToolService(ctx),
      sessions: new SessionService(ctx),
      runs: new RunService(ctx),
      replay: new ReplayService(ctx),
      forks: new ForkService(ctx),
      chains: new ChainService(ctx, chains),
      mcpServers: new McpServerService(ctx, hub, apiStdio),
    },
    engine,
    store,
    durability,
    close: async () => {
      chains.shutdown();
      await engine.shutdown();
      await hub.closeAll();
      await store.close();
      lock?.release();
    },
  };
}

/** Whether stdio MCP servers may come through the API: as configured, else only without tokens. */
function stdioFromApiAllowed(config: HoldfastConfig, bearerTokens: boolean): boolean {
  const chosen = config.tools.mcp.api_stdio;
  return chosen === undefined ? !bearerTokens : chosen === "allow";
}
