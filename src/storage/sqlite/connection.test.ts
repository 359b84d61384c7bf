import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/support/temp-dirs.js";
import { openSqliteStore } from "./sqlite-store.js";

describe("SQLite durability (issue #16)", () => {
  const dir = tempDir("holdfast-durability-");

  it("flushes every commit by default: WAL with synchronous=FULL", async () => {
    const store = await openSqliteStore(join(dir, "default.db"));
    expect(store.durabilityInForce()).toEqual({
      durability: "full",
      synchronous: "FULL",
      journalMode: "wal",
    });
    await store.close();
  });

  it("runs synchronous=NORMAL only when normal is chosen", async () => {
    const store = await openSqliteStore(join(dir, "normal.db"), { durability: "normal" });
    expect(store.durabilityInForce()).toEqual({
      durability: "normal",
      synchronous: "NORMAL",
      journalMode: "wal",
    });
    await store.close();
  });

  it("keeps the mode a store was opened with, not the one a file last had", async () => {
    const path = join(dir, "reopened.db");
    await (await openSqliteStore(path, { durability: "normal" })).close();
    const store = await openSqliteStore(path);
    expect(store.durabilityInForce().synchronous).toBe("FULL");
    await store.close();
  });
});
