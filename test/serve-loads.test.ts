import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

const HOOK = pathToFileURL(join(import.meta.dirname, "support", "record-loads.mjs")).href;

async function post(url: string, body: unknown): Promise<{ id?: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id?: string };
}

/**
 * A server on SQLite loads only what it uses (decision 033): the PostgreSQL and Restate clients
 * are for servers on them, the MCP SDK for the first MCP connection, and prom-client's index
 * (its default metrics) for nobody. Every module the server process resolves is recorded, from
 * its start through a first turn over HTTP.
 */
describe("what holdfast serve loads on SQLite", () => {
  it("loads no PostgreSQL, Restate or MCP client, nor prom-client's index, through a first turn", async () => {
    const dir = tempDir("holdfast-serve-loads-");
    const loads = join(dir, "loads.txt");
    const { url, process: server } = await startServer(
      ["--data-dir", join(dir, "data"), "--port", "0"],
      { cwd: dir, env: { NODE_OPTIONS: `--import=${HOOK}`, HOLDFAST_RECORD_LOADS: loads } },
    );
    try {
      const agent = await post(`${url}/v1/agents/`, { model: "sim/demo" });
      await post(`${url}/v1/agents/${agent.id}/messages`, {
        messages: [{ role: "user", content: "hello" }],
      });
    } finally {
      await stopServer(server);
    }
    const loaded = readFileSync(loads, "utf8").split("\n");
    // The record is real: the server's own chunks and prom-client's classes are in it.
    expect(loaded.some((url) => /\/dist\/bundle\/serve-[^/]+\.mjs$/.test(url))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/prom-client/lib/counter.js"))).toBe(true);
    const unused = loaded.filter((url) =>
      /\/node_modules\/(pg|pg-pool|@restatedev\/[^/]+|@modelcontextprotocol\/sdk)\/|\/prom-client\/index\.js$/.test(
        url,
      ),
    );
    expect(unused).toEqual([]);
  });
});
