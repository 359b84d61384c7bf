import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/postgres.js";
import { until } from "../../test/support/until.js";
import type { ChainCommand } from "./chain-claims.js";
import { PgChainClaims } from "./pg-chain-claims.js";

const db = usePostgres();
const opened: PgChainClaims[] = [];
afterEach(async () => {
  for (const claims of opened.splice(0)) await claims.close();
});

async function open(schema: string) {
  const claims = await PgChainClaims.open(db.url(), schema);
  opened.push(claims);
  const told: [string, ChainCommand][] = [];
  let lost = 0;
  claims.listen({ command: (runId, command) => told.push([runId, command]), lost: () => lost++ });
  return { claims, told, lost: () => lost };
}

describe("chain runs shared by API processes over PostgreSQL", () => {
  it("gives each run to one process; released or ended, another takes it", async () => {
    const schema = db.freshSchema();
    const a = await open(schema);
    const b = await open(schema);
    expect(await a.claims.claim("run-1")).toBe(true);
    expect(await a.claims.claim("run-1")).toBe(true);
    expect(await b.claims.claim("run-1")).toBe(false);
    expect(await b.claims.claim("run-2")).toBe(true);
    // Another schema is another set of runs.
    expect(await (await open(db.freshSchema())).claims.claim("run-1")).toBe(true);
    await a.claims.release("run-1");
    expect(await b.claims.claim("run-1")).toBe(true);
    await b.claims.close();
    expect(await a.claims.claim("run-2")).toBe(true);
  });

  it("tells commands only to the process that drives the run", async () => {
    const schema = db.freshSchema();
    const a = await open(schema);
    const b = await open(schema);
    await a.claims.claim("run-1");
    await b.claims.tell("run-1", { op: "answered", toolCallIds: ["call-1"] });
    await b.claims.tell("run-9", { op: "cancel" });
    await until(() => a.told.length === 1);
    expect(a.told).toEqual([["run-1", { op: "answered", toolCallIds: ["call-1"] }]]);
    expect(b.told).toEqual([]);
  });

  it("says every claim is lost when its connection dies, and claims again on a new one", async () => {
    const schema = db.freshSchema();
    const a = await open(schema);
    const b = await open(schema);
    await a.claims.claim("run-1");
    const admin = new pg.Client({ connectionString: db.url() });
    await admin.connect();
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'holdfast chains%' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')",
    );
    await admin.end();
    await until(() => a.lost() === 1);
    expect(await b.claims.claim("run-1")).toBe(true);
    expect(await a.claims.claim("run-1")).toBe(false);
    expect(await a.claims.claim("run-3")).toBe(true);
  });
});
