import pgClient, { type PoolClient } from "pg";
import { describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/postgres.js";
import { newSessionState } from "../records/session-state.js";
import { agentRecord, block, userMessage } from "./contract/fixtures.js";
import { DatabaseInUseError } from "./postgres/database-in-use.js";
import { MIGRATIONS, migrate, quoteIdentifier } from "./postgres/migrations.js";
import { openPostgresStore, type PostgresStore } from "./postgres/postgres-store.js";
import { lockDatabase } from "./postgres/writer-lock.js";
import { storeContract } from "./store.contract.js";
import type { Store } from "./store.js";

// One PostgreSQL server for the file; each test a fresh schema in it.
const pg = usePostgres();
const schemas = new WeakMap<Store, string>();

async function open(schema: string): Promise<PostgresStore> {
  const store = await openPostgresStore(pg.url(), { schema, poolSize: 4 });
  schemas.set(store, schema);
  return store;
}

storeContract("PostgreSQL store", () => open(pg.freshSchema()), {
  reopen: async (old) => {
    const schema = schemas.get(old);
    if (schema === undefined) throw new Error("reopening a store this test did not open");
    await old.close();
    return open(schema);
  },
});

describe("PostgreSQL store, beyond the contract", () => {
  it("keeps an agent's blocks attached to it across the blocks-as-entities migration", async () => {
    const schema = pg.freshSchema();
    const client = new pgClient.Client({ connectionString: pg.url() });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
      await client.query(`SET search_path = ${quoteIdentifier(schema)}`);
      await migrate(client as unknown as PoolClient, schema, MIGRATIONS.slice(0, 2));
      const agent = agentRecord("agent-old");
      await client.query("INSERT INTO agents (id, project_id, body) VALUES ($1, $2, $3)", [
        agent.id,
        agent.project_id,
        JSON.stringify(agent),
      ]);
      await client.query("INSERT INTO blocks (agent_id, label, body) VALUES ($1, $2, $3)", [
        agent.id,
        "human",
        JSON.stringify(block("human", "likes tea")),
      ]);
    } finally {
      await client.end();
    }
    const store = await open(schema);
    expect(await store.loadBlocks("agent-old")).toEqual([block("human", "likes tea")]);
    expect(await store.blocks.agentsOf("project-1", "block-human")).toEqual(["agent-old"]);
    expect(await store.deleteAgent("agent-old")).toBe(true);
    expect(await store.blocks.get("project-1", "block-human")).toBeNull();
    await store.close();
  });

  it("migrates once when several servers open one new schema at the same moment", async () => {
    const schema = pg.freshSchema();
    const stores = await Promise.all([open(schema), open(schema), open(schema)]);
    await stores[0]?.createAgent({ agent: agentRecord("agent-shared"), blocks: [] });
    expect(await stores[2]?.getAgent("agent-shared")).toEqual(agentRecord("agent-shared"));
    for (const store of stores) await store.close();
  });

  it("refuses text PostgreSQL cannot store as invalid input, and writes none of the step", async () => {
    const store = await open(pg.freshSchema());
    await store.createAgent({ agent: agentRecord("agent-nul"), blocks: [] });
    const step = {
      agentId: "agent-nul",
      state: newSessionState("session-1"),
      messages: [userMessage("m-ok", "fine"), userMessage("m-nul", "a\u0000b")],
      memory: { blocks: [], passages: [] },
    };
    await expect(store.commit(step)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await store.countMessages("agent-nul")).toBe(0);
    await store.close();
  });

  it("lets one holder at a time take a schema's writer lock, naming the holder", async () => {
    const schema = pg.freshSchema();
    const lost: Error[] = [];
    const first = await lockDatabase(pg.url(), schema, (error) => lost.push(error));
    const refused = lockDatabase(pg.url(), schema, () => undefined);
    await expect(refused).rejects.toBeInstanceOf(DatabaseInUseError);
    await expect(refused).rejects.toMatchObject({
      message: expect.stringContaining(`holdfast serve pid ${process.pid} on `),
    });
    // Another schema is another lock.
    const other = await lockDatabase(pg.url(), pg.freshSchema(), () => undefined);
    await first.release();
    const next = await lockDatabase(pg.url(), schema, () => undefined);
    await next.release();
    await other.release();
    expect(lost).toEqual([]);
  });
});
