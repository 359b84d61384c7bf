import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import * as restate from "@restatedev/restate-sdk";
import pg from "pg";
import type { Store } from "../../storage/store.js";
import { EmbeddedEngine } from "../embedded-engine.js";
import type { AgentRoute, EngineOptions } from "../turns.js";
import { agentObject } from "./agent-object.js";
import { fencedStore } from "./fenced-store.js";
import { handoffService } from "./handoff-service.js";
import { Ingress } from "./ingress.js";
import { NotifyingEvents } from "./pg-events.js";
import { unwire, type Wire } from "./wire.js";

export interface WorkerOptions
  extends Omit<EngineOptions, "store" | "events" | "route" | "sharedStore"> {
  /** The PostgreSQL store every worker and API process shares. */
  readonly store: Store;
  /** Its URL and schema: events and cancels go over LISTEN/NOTIFY on it. */
  readonly pgUrl: string;
  readonly schema: string;
  /** Restate's ingress, through which an agent reaches another. */
  readonly ingressUrl: string;
  /** Where the endpoint listens (default 127.0.0.1 and a free port). */
  readonly host?: string;
  readonly port?: number;
  /** Awaited before each job (a change of the tool catalogue being taken in, say). */
  readonly beforeJob?: () => Promise<void>;
  /** Told what the Restate SDK logs (by level); nothing is logged without it. */
  readonly log?: (level: string, message: string) => void;
}

/** A running worker: the Restate service endpoint its agents' handlers run in. */
export interface RestateWorker {
  readonly url: string;
  readonly port: number;
  readonly engine: EmbeddedEngine;
  close(): Promise<void>;
}

/** The channel on which a cancel reaches every worker. */
export const cancelChannel = (schema: string) => `${schema}_cancel`;

/**
 * Starts a worker: stateless (everything it knows is in PostgreSQL and Restate), any number of
 * them behind one address. Restate sends it invocations of the `Agent` object's handlers.
 */
export async function startWorker(options: WorkerOptions): Promise<RestateWorker> {
  const ingress = new Ingress(options.ingressUrl);
  const events = await NotifyingEvents.open(options.pgUrl, options.schema);
  const cancels = new pg.Client({
    connectionString: options.pgUrl,
    application_name: "holdfast worker",
  });
  cancels.on("error", () => undefined);
  await cancels.connect();
  const route = ingressRoute(ingress);
  const store = fencedStore(options.store);
  const engine = new EmbeddedEngine({ ...options, store, events, route, sharedStore: true });
  cancels.on("notification", (note) => {
    if (note.payload) engine.abortLocal(note.payload);
  });
  const channel = cancelChannel(options.schema);
  await cancels.query(`LISTEN "${channel}"`);
  const object = agentObject({
    engine,
    store,
    clock: options.clock,
    route,
    flushEvents: () => events.flush(),
    beforeJob: options.beforeJob ?? (() => Promise.resolve()),
    broadcastCancel: async (agentId) => {
      await cancels.query("SELECT pg_notify($1, $2)", [channel, agentId]);
    },
  });
  const handler = restate
    .endpoint()
    .bind(object)
    .bind(handoffService())
    .setLogger((meta, message: unknown, ...rest: unknown[]) => {
      options.log?.(meta.level, [message, ...rest].map(String).join(" "));
    })
    .http2Handler();
  const server = createServer(handler);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    engine,
    close: async () => {
      await closeServer(server);
      await engine.shutdown();
      ingress.close();
      await events.close();
      await cancels.end().catch(() => undefined);
    },
  };
}

/** How a worker's agents reach each other: through the ingress, into the other's mailbox. */
function ingressRoute(ingress: Ingress): AgentRoute {
  return {
    async send(agentId, input) {
      // Keyed by the task's otid: a repeated delivery attaches to the first.
      await ingress.send(agentId, "send", { input }, input.otid ?? undefined);
      return { duplicate: false };
    },
    async approve(agentId, decisions) {
      return unwire(await ingress.call<Wire<unknown>>(agentId, "approve", { decisions }));
    },
    async cancel(agentId) {
      return unwire(await ingress.call<Wire<boolean>>(agentId, "cancel", null));
    },
    async collect(agentId, deep) {
      await ingress.send(agentId, "collect", { deep });
    },
  };
}

function closeServer(server: Http2Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Restate keeps HTTP/2 sessions open; closing the server alone would wait for them.
    setTimeout(() => resolve(), 2_000).unref();
  });
}
