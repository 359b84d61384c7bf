import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { HoldfastMetrics } from "../observability/metrics.js";
import { registerDeployment } from "../runtime/restate/admin.js";
import { followMcpChanges } from "../runtime/restate/mcp-news.js";
import { type RestateWorker, startWorker } from "../runtime/restate/worker.js";
import { DEFAULT_DURABILITY } from "../storage/durability.js";
import { DEFAULT_POOL_SIZE, DEFAULT_SCHEMA } from "../storage/postgres/pool.js";
import { openPostgresStore } from "../storage/postgres/postgres-store.js";
import type { AssembleOptions } from "./assemble.js";
import { type RuntimeParts, runtimeParts } from "./runtime-parts.js";
import { syncStoredServers } from "./tool-sources.js";

export interface WorkerAssembleOptions
  extends Omit<AssembleOptions, "postgres" | "restate" | "store"> {
  pgUrl: string;
  poolSize?: number;
  ingressUrl: string;
  adminUrl: string;
  host: string;
  port: number;
  /** The address Restate reaches this worker at (default its own): a load balancer's, say. */
  advertiseUrl?: string;
  log?: (level: string, message: string) => void;
  /** Where to serve the worker's metrics (`GET /metrics`, on `host`); none if not given. */
  metricsPort?: number;
}

export interface AssembledWorker {
  worker: RestateWorker;
  parts: RuntimeParts;
  /** The address registered with Restate. */
  registered: string;
  /** Where its metrics are served (`/metrics`), if they are. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

const REGISTER_ATTEMPTS = 60;

/**
 * A Restate worker with everything an agent's turn needs (tools, sandbox, models, embeddings,
 * metrics), over the shared PostgreSQL store, registered with Restate's admin API (retried
 * while Restate starts).
 */
export async function assembleWorker(options: WorkerAssembleOptions): Promise<AssembledWorker> {
  const schema = DEFAULT_SCHEMA;
  const store = await openPostgresStore(options.pgUrl, {
    schema,
    poolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
    durability: options.durability ?? DEFAULT_DURABILITY,
  });
  try {
    const parts = await runtimeParts(options, store);
    const mcpNews = await followMcpChanges(options.pgUrl, schema, () =>
      syncStoredServers(parts.hub, parts.store, parts.apiStdio),
    );
    const worker = await startWorker({
      beforeJob: () => mcpNews.settled(),
      ...parts.engineOptions,
      store: parts.store,
      pgUrl: options.pgUrl,
      schema,
      ingressUrl: options.ingressUrl,
      host: options.host,
      port: options.port,
      ...(options.log && { log: options.log }),
    });
    await parts.embeddings.queue.start();
    const registered = options.advertiseUrl ?? worker.url;
    await registerWithRetries(options.adminUrl, registered);
    parts.metrics.watch({
      activeAgents: () => worker.engine.activeCount,
      mailboxDepth: () => worker.engine.mailboxDepth,
    });
    const metrics =
      options.metricsPort !== undefined && options.config.observability.metrics !== "off"
        ? await serveMetrics(parts.metrics, options.host, options.metricsPort)
        : null;
    return {
      worker,
      parts,
      registered,
      metricsUrl: metrics?.url ?? null,
      close: async () => {
        await metrics?.close();
        await worker.close();
        await mcpNews.close();
        await parts.embeddings.queue.stop();
        await parts.tracing?.shutdown();
        await parts.hub.closeAll();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function registerWithRetries(adminUrl: string, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await registerDeployment(adminUrl, url);
      return;
    } catch (error) {
      if (attempt >= REGISTER_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * The worker's own metrics over plain HTTP/1.1 (its Restate endpoint speaks HTTP/2 only, which
 * Prometheus does not scrape): the turns, model and tool calls it ran. Like its endpoint, this
 * port belongs on the cluster's private network.
 */
async function serveMetrics(
  metrics: HoldfastMetrics,
  host: string,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics here\n");
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
