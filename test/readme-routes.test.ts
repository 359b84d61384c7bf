import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientRoute, clientRoutes, normalisePath } from "./support/client-routes.js";
import { probeRoute } from "./support/route-probe.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #15, "Proof": the README's table of client routes covers every route the official
// client calls, each one works or is refused (nothing is left "not built yet"), and no route
// it marks "works" is missing on a running server.

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const STATUSES = ["works", "refused"] as const;
type Status = (typeof STATUSES)[number];

/** The rows of the table under "### Every client route": route → status. */
function readmeTable(): Map<string, { route: ClientRoute; status: Status }> {
  const from = README.indexOf("### Every client route");
  expect(from).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, { route: ClientRoute; status: Status }>();
  const lines = README.slice(from).split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [cell = "", status = ""] = line
      .split("|")
      .slice(1)
      .map((c) => c.trim());
    const match = /^`(GET|POST|PUT|PATCH|DELETE) (\/v1\/\S*)`$/.exec(cell);
    expect(match, line).not.toBeNull();
    expect(STATUSES, line).toContain(status);
    const route = {
      method: match?.[1] as ClientRoute["method"],
      path: normalisePath(match?.[2] ?? ""),
    };
    const key = `${route.method} ${route.path}`;
    expect(rows.has(key), `listed twice: ${key}`).toBe(false);
    rows.set(key, { route, status: status as Status });
  }
  return rows;
}

let server: Awaited<ReturnType<typeof startTestServer>>;
let agentId: string;
beforeAll(async () => {
  server = await startTestServer();
  agentId = (await server.client().agents.create({ agent_type: "letta_v1_agent" })).id;
});
afterAll(() => server?.close());

describe("the README's route table (issue #15)", () => {
  it("lists every route the client calls, each once, with a status", () => {
    const table = readmeTable();
    const routes = clientRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const missing = routes.map((r) => `${r.method} ${r.path}`).filter((key) => !table.has(key));
    expect(missing).toEqual([]);
  });

  it("has no route marked works that the server lacks, and refuses refused ones with a 4xx", async () => {
    const table = [...readmeTable().values()];
    // Deleting the agent last keeps it there for every other route.
    table.sort((a, b) => Number(a.route.method === "DELETE") - Number(b.route.method === "DELETE"));
    const lacking: string[] = [];
    const notRefused: string[] = [];
    for (const { route, status } of table) {
      const answer = await probeRoute(server.url, route, agentId);
      const key = `${route.method} ${route.path} → ${answer.status}`;
      if (answer.noRoute) lacking.push(key);
      if (status === "refused" && !(answer.status >= 400 && answer.status < 500))
        notRefused.push(key);
    }
    expect(lacking).toEqual([]);
    expect(notRefused).toEqual([]);
  });
});
