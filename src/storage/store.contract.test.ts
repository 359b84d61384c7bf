import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createInMemoryStore } from "./memory/in-memory-store.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import { storeContract } from "./store.contract.js";
import type { Store } from "./store.js";

storeContract("in-memory store", async () => createInMemoryStore());

storeContract("SQLite store in memory", () => openSqliteStore(":memory:"));

const directory = await mkdtemp(join(tmpdir(), "holdfast-store-"));
const paths = new WeakMap<Store, string>();
let files = 0;

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

storeContract(
  "SQLite store in a file",
  async () => {
    const path = join(directory, `store-${++files}.db`);
    const store = await openSqliteStore(path);
    paths.set(store, path);
    return store;
  },
  {
    reopen: async (old) => {
      const path = paths.get(old);
      if (path === undefined) throw new Error("reopening a store this test did not open");
      await old.close();
      const store = await openSqliteStore(path);
      paths.set(store, path);
      return store;
    },
  },
);
