import { mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { HoldfastConfig } from "../config/config-file.js";
import { prepareSandbox, withSandbox } from "../config/sandbox-section.js";
import { prepareWebTools } from "../config/web-section.js";
import { systemClock } from "../core/clock.js";
import { productionIds } from "../core/ids.js";
import { createModel } from "../llm/create-model.js";
import { parseModelHandle } from "../llm/handle.js";
import type { ModelAdapter } from "../llm/model.js";
import { checkProviderReady } from "../llm/provider-settings.js";
import { providerLimiters } from "../llm/rate-limit.js";
import { withArchives } from "../memory/archive-search.js";
import { HoldfastMetrics } from "../observability/metrics.js";
import { allObservers } from "../observability/observers.js";
import { startTracing } from "../observability/tracing.js";
import type { AgentRecord } from "../records/agent-record.js";
import { type Embeddings, wireEmbeddings } from "../runtime/embeddings.js";
import type { EngineOptions } from "../runtime/turns.js";
import { type FolderEmbedding, folderEmbedding } from "../service/folder-embedding.js";
import type { Store } from "../storage/store.js";
import type { SandboxDetection } from "../tools/sandbox/sandbox.js";
import type { WebSettings } from "../tools/web/web-settings.js";
import type { AssembleOptions } from "./assemble.js";
import { startToolSources } from "./tool-sources.js";

/**
 * What runs agents, whichever process runs them (an API server's embedded engine, a Restate
 * worker): the config with its sandbox and web tools, the tool sources, embeddings, models,
 * metrics and traces, and the options an engine is made from.
 */
export interface RuntimeParts {
  config: HoldfastConfig;
  detection: SandboxDetection;
  web: WebSettings;
  hub: Awaited<ReturnType<typeof startToolSources>>["hub"];
  apiStdio: boolean;
  embeddings: Embeddings;
  /** Embedding of folders' chunks (uploads), and their nearest-chunk search. */
  folderVectors: FolderEmbedding;
  /** The store with hybrid search. */
  store: Store;
  modelFor(handle: string): ModelAdapter;
  checkModel(handle: string): string | undefined;
  metrics: HoldfastMetrics;
  tracing: Awaited<ReturnType<typeof startTracing>>;
  engineOptions: EngineOptions;
}

export async function runtimeParts(
  options: AssembleOptions,
  plainStore: Store,
): Promise<RuntimeParts> {
  const { dataDir } = options;
  const env = options.env ?? process.env;
  const prepared = options.sandbox
    ? { config: withSandbox(options.config, options.sandbox), detection: options.sandbox }
    : await prepareSandbox(options.config, [dataDir, ...(options.hiddenPaths ?? [])]);
  const { detection } = prepared;
  // Without a search provider (or its key) web_search is withheld, with the reason.
  const { config: withWeb, web } = prepareWebTools(prepared.config, env);
  const apiStdio = stdioFromApiAllowed(withWeb, options.bearerTokens === true);
  const folderVectors = folderEmbedding({
    folders: plainStore.folders,
    providers: withWeb.providers,
    env,
    clock: systemClock,
    ...(options.embeddingRetry && { retry: options.embeddingRetry }),
    ...(options.onEmbeddingEvent && { log: options.onEmbeddingEvent }),
  });
  const sources = await startToolSources({
    nearestChunks: folderVectors.nearest,
    config: withWeb,
    apiStdio,
    store: plainStore,
    sandbox: detection.ok ? detection.sandbox : null,
    web,
    clock: systemClock,
    ...(options.onMcpEvent ? { log: options.onMcpEvent } : {}),
  });
  const { config, hub } = sources;
  const embeddings = wireEmbeddings({
    store: withArchives(plainStore),
    config,
    env,
    clock: systemClock,
    ...(options.embeddingRetry && { retry: options.embeddingRetry }),
    ...(options.onEmbeddingEvent && { log: options.onEmbeddingEvent }),
  });
  const { store } = embeddings;
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
  const metrics = new HoldfastMetrics();
  const tracing = await startTracing(options.otelEnv ?? env);
  const observer = allObservers(tracing ? [metrics, tracing.observer] : [metrics]);
  /** An agent's own folder under its type's workspace root (relative to the data directory). */
  const workspaceRoot = (record: AgentRecord) => {
    const base = config.registry.get(record.agent_type)?.isolation.workspace_root ?? "workspaces";
    return resolve(isAbsolute(base) ? base : join(dataDir, base), record.id);
  };
  const engineOptions: EngineOptions = {
    ...(observer && { observer }),
    store,
    config,
    ids: productionIds,
    tools: sources.catalogue.runnable,
    modelFor,
    defaultModel: options.defaultModel,
    workspaceFor: (record, isolation) => {
      const root = workspaceRoot(record);
      mkdirSync(root, { recursive: true });
      return { root, readOnly: isolation.read_only, network: isolation.network };
    },
    // Off the event loop: a workspace may hold many files.
    dropWorkspace: (record) => rm(workspaceRoot(record), { recursive: true, force: true }),
    clock: systemClock,
  };
  return {
    config,
    detection,
    web,
    hub,
    apiStdio,
    embeddings,
    folderVectors,
    store,
    modelFor,
    checkModel,
    metrics,
    tracing,
    engineOptions,
  };
}

/** Whether stdio MCP servers may come through the API: as configured, else only without tokens. */
function stdioFromApiAllowed(config: HoldfastConfig, bearerTokens: boolean): boolean {
  const chosen = config.tools.mcp.api_stdio;
  return chosen === undefined ? !bearerTokens : chosen === "allow";
}
