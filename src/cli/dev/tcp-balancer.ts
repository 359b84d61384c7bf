import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A loopback TCP balancer in front of the workers, for the dev cluster and tests: Restate
 * registers one address, and each new connection goes to the next worker that accepts it. A
 * worker that dies drops its connections; Restate reconnects and lands on a live one. In
 * production a real load balancer (or a Kubernetes Service) plays this part.
 */
export interface TcpBalancer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startTcpBalancer(backends: readonly number[]): Promise<TcpBalancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const connect = (client: Socket, tries: number) => {
    if (tries >= backends.length) {
      client.destroy();
      return;
    }
    const port = backends[next++ % backends.length] ?? 0;
    const upstream = createConnection({ host: "127.0.0.1", port, noDelay: true });
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    upstream.once("error", () => {
      // Refused before anything was sent: try the next worker; else the client sees it close.
      if (upstream.bytesWritten === 0 && !client.destroyed) connect(client, tries + 1);
      else client.destroy();
    });
    upstream.once("connect", () => {
      client.pipe(upstream).pipe(client);
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
    });
  };
  // No Nagle on either side: Restate's calls are small HTTP/2 frames both ways, and a frame
  // held back for a delayed ACK added some 40 ms to every call.
  const server: Server = createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    connect(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
