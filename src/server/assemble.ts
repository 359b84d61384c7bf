import { join } from "node:path";
import type { ChainResumeFailure } from "../chains/chain-runner.js";
import type { HoldfastConfig } from "../config/config-file.js";
import type { ModelAdapter } from "../llm/model.js";
import type { HoldfastMetrics } from "../observability/metrics.js";
import type { Embeddings } from "../runtime/embeddings.js";
import type { Engine } from "../runtime/engine.js";
import type { FolderEmbedding } from "../service/folder-embedding.js";
import { DEFAULT_DURABILITY, type Durability } from "../storage/durability.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { DurabilityInForce } from "../storage/sqlite/connection.js";
import { lockDataDirOrThrow } from "../storage/sqlite/data-dir-lock.js";
import { openSqliteStore, type SqliteStore } from "../storage/sqlite/sqlite-store.js";
import type { Store } from "../storage/store.js";
import type { SandboxDetection } from "../tools/sandbox/sandbox.js";
import type { WebSettings } from "../tools/web/web-settings.js";
import type { Services } from "./app.js";
import { wire } from "./wire.js";

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
  if (options.postgres) {
    // PostgreSQL (and Restate) bring their clients: a server on SQLite does not load them.
    const { assemblePostgres } = await import("./assemble-postgres.js");
    return assemblePostgres(options, options.postgres);
  }
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
