import { registerDeployment } from "../runtime/restate/admin.js";
import { type RestateWorker, startWorker } from "../runtime/restate/worker.js";
import { DEFAULT_DURABILITY } from "../storage/durability.js";
import { DEFAULT_POOL_SIZE, DEFAULT_SCHEMA } from "../storage/postgres/pool.js";
import { openPostgresStore } from "../storage/postgres/postgres-store.js";
import type { AssembleOptions } from "./assemble.js";
import { type RuntimeParts, runtimeParts } from "./runtime-parts.js";

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
}

export interface AssembledWorker {
  worker: RestateWorker;
  parts: RuntimeParts;
  /** The address registered with Restate. */
  registered: string;
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
    const worker = await startWorker({
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
    return {
      worker,
      parts,
      registered,
      close: async () => {
        await worker.close();
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
