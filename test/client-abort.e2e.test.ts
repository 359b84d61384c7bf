import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

type Server = Awaited<ReturnType<typeof startServer>>;

describe("a client that goes away mid-request", () => {
  const cwd = tempDir("holdfast-client-abort-");
  writeFileSync(join(cwd, "holdfast.yaml"), "server:\n  port: 0\n");
  let server: Server;
  beforeAll(async () => {
    server = await startServer([], { cwd });
  }, 30_000);
  afterAll(async () => stopServer(server.process));

  it("is logged as the client's doing (499), not as an internal error", async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await new Promise((connected) => socket.once("connect", connected));
    socket.write(
      "POST /v1/agents/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\n\r\n{"name":"ab',
    );
    await new Promise((sent) => setTimeout(sent, 100));
    socket.destroy();
    const requestLine = () =>
      server
        .output()
        .split("\n")
        .find((line) => line.includes('"msg":"request"') && line.includes('"path":"/v1/agents"'));
    await until(async () => requestLine() !== undefined);
    expect(JSON.parse(requestLine() ?? "{}")).toMatchObject({ method: "POST", status: 499 });
    expect(server.output()).not.toContain("unexpected error");
    // The server goes on serving.
    expect((await fetch(`${server.url}/v1/health/`)).status).toBe(200);
  });
});
