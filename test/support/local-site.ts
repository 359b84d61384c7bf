import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the site received, with its body read. */
export interface SiteRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type SiteHandler = (request: SiteRequest, response: ServerResponse) => void;

/**
 * A real HTTP server on 127.0.0.1 and a free port, answering each path with its handler (404
 * otherwise) and recording every request, for the web tools to fetch in tests.
 */
export async function startLocalSite(routes: Record<string, SiteHandler>) {
  const requests: SiteRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://site");
      const request = {
        method: req.method ?? "GET",
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      const handler = routes[url.pathname];
      if (handler) handler(request, res);
      else res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type LocalSite = Awaited<ReturnType<typeof startLocalSite>>;

/** A handler that answers with a fixed status, content type and body. */
export const reply =
  (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  (_request: SiteRequest, response: ServerResponse) =>
    response.writeHead(status, { "content-type": type, ...headers }).end(body);

/** A handler that redirects to `location`. */
export const redirect =
  (location: string, status = 302) =>
  (_request: SiteRequest, response: ServerResponse) =>
    response.writeHead(status, { location }).end();
