import { usePostgres } from "../../test/support/postgres.js";
import { openPostgresStore, type PostgresStore } from "./postgres/postgres-store.js";
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
