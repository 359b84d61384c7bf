import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

/** A server bound to a port; `close` stops accepting connections and waits for open ones. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Binds the app to `host:port` (port 0 picks a free one) and resolves once it listens. */
export function listen(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  host: string,
  port: number,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) =>
            server.close((error) => (error ? fail(error) : done())),
          ),
      });
    });
    server.once("error", reject);
  });
}
