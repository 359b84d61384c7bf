import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "./support/server-kit.js";

let server: Awaited<ReturnType<typeof startTestServer>>;
let realAgent = "";
beforeAll(async () => {
  server = await startTestServer();
  realAgent = (await server.client().agents.create({ name: "fuzz-target" })).id;
});
afterAll(async () => server.close());

interface Operation {
  method: string;
  path: string;
}

/** Every operation the server documents, from its own OpenAPI document. */
async function operations(): Promise<Operation[]> {
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    paths: Record<string, object>;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );
}

const hostile = fc.oneof(
  fc.constantFrom(
    "",
    "..",
    "%2e%2e",
    "agent-",
    "agent-nope",
    "x".repeat(5000),
    "💥",
    "a/b",
    "null",
  ),
  fc.string({ maxLength: 40 }),
);
/** A field of any route's body holding arrays or objects nested `depth` deep (issue #16, point 6). */
const deepValue = fc
  .record({
    field: fc.constantFrom("metadata", "json_schema", "metadata_", "tool_rules", "messages", "x"),
    depth: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 4_000, max: 12_000 })),
    array: fc.boolean(),
  })
  .map(({ field, depth, array }) => {
    const [open, close] = array ? ["[", "]"] : ['{"a":', "}"];
    return `{"${field}":${open.repeat(depth)}1${close.repeat(depth)}}`;
  });
const deepBody = fc
  .integer({ min: 1_000, max: 12_000 })
  .map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`);
const body = fc.oneof(
  fc.json(),
  deepValue,
  deepBody,
  fc.constantFrom(
    "{",
    "[]",
    "null",
    '{"messages":[]}',
    '{"name":{}}',
    '{"memory_blocks":[{"label":"Bad Label"}]}',
  ),
  fc
    .record({ name: fc.oneof(fc.string(), fc.integer(), fc.constant("y".repeat(300))) })
    .map((v) => JSON.stringify(v)),
  fc.constant(JSON.stringify({ messages: [{ role: "user", content: "z".repeat(2_000_000) }] })),
);
const query = fc.dictionary(
  fc.constantFrom("after", "before", "limit", "order", "tags", "query", "top_k", "ascending"),
  hostile,
);

async function agentCount(): Promise<number> {
  return ((await (await fetch(`${server.url}/v1/agents?limit=1000`)).json()) as unknown[]).length;
}

describe("malformed requests to every route", () => {
  it("always get a 4xx (or a success) with a JSON body, never a 500, and never a half-made agent", async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(5);
    const before = await agentCount();
    let created = 0;
    const deletions: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops),
        hostile,
        body,
        query,
        fc.boolean(),
        async (op, id, text, q, realId) => {
          // Deleting the target agent would leave the rest of the run nothing real to hit.
          const useReal =
            realId && !(op.method === "DELETE" && op.path === "/v1/agents/{agent_id}");
          // fetch resolves a "." or ".." segment (escaped or not) before sending, turning
          // ".../archival-memory/.." into a real DELETE of the agent; the server's own guard
          // against such paths is tested in app.test.ts.
          const segment = (value: string) =>
            /^\.{1,2}$/.test(value) ? "dots" : encodeURIComponent(value);
          const path = op.path
            .replace(/\{agent_id\}/g, segment(useReal ? realAgent : id))
            .replace(/\{[a-z_]+\}/g, segment(id));
          const search = new URLSearchParams(Object.entries(q)).toString();
          const init: RequestInit = {
            method: op.method,
            headers: { "content-type": "application/json" },
          };
          if (!["GET", "DELETE"].includes(op.method)) init.body = text;
          const response = await fetch(`${server.url}${path}${search ? `?${search}` : ""}`, init);
          const type = response.headers.get("content-type") ?? "";
          const payload = await response.text();
          expect(response.status, `${op.method} ${path}: ${payload.slice(0, 300)}`).toBeLessThan(
            500,
          );
          // Node itself refuses oversized request lines and headers (431) before the app runs.
          if (response.status >= 400 && response.status !== 431) {
            expect(type, `status ${response.status} for ${op.method} ${op.path}`).toContain(
              "application/json",
            );
            expect(JSON.parse(payload)).toHaveProperty("code");
          }
          if (op.method === "POST" && op.path === "/v1/agents" && response.status === 200) {
            created += 1;
          }
          if (op.method === "DELETE" && response.status < 300) {
            deletions.push(`${op.method} ${path.slice(0, 120)} -> ${response.status}`);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect((await fetch(`${server.url}/v1/health/`)).status).toBe(200);
    expect(await agentCount(), deletions.join("\n")).toBe(before + created);
  });
});
