import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/support/temp-dirs.js";
import { agentRecord, block } from "../contract/fixtures.js";
import { openSqliteStore } from "./sqlite-store.js";

describe("SQLite durability (issue #16, decision 030)", () => {
  const dir = tempDir("holdfast-durability-");
  const newAgent = (id: string) => ({
    agent: agentRecord(id),
    blocks: [{ ...block("persona"), id: `block-${id}` }],
  });

  it("full by default: commits in the WAL, which is synced before anything is acknowledged", async () => {
    const store = await openSqliteStore(join(dir, "default.db"));
    expect(store.durabilityInForce()).toEqual({
      durability: "full",
      synchronous: "NORMAL",
      journalMode: "wal",
      walSynced: "before each acknowledgement",
      checkpointAfterPages: 4000,
    });
    await store.flush();
    expect(store.flusher?.syncs).toBe(0);
    await store.createAgent(newAgent("agent-1"));
    await store.createAgent(newAgent("agent-2"));
    await Promise.all([store.flush(), store.flush(), store.flush()]);
    expect(store.flusher?.syncs).toBe(1);
    await store.flush();
    expect(store.flusher?.syncs).toBe(1);
    await store.createAgent(newAgent("agent-3"));
    await store.flush();
    expect(store.flusher?.syncs).toBe(2);
    await store.close();
  });

  it("normal syncs the WAL at checkpoints only: flush returns at once", async () => {
    const store = await openSqliteStore(join(dir, "normal.db"), { durability: "normal" });
    expect(store.durabilityInForce()).toEqual({
      durability: "normal",
      synchronous: "NORMAL",
      journalMode: "wal",
      walSynced: "at checkpoints",
      checkpointAfterPages: 1000,
    });
    expect(store.flusher).toBeNull();
    await store.createAgent(newAgent("agent-1"));
    await store.flush();
    await store.close();
  });

  it("keeps the mode a store was opened with, not the one a file last had", async () => {
    const path = join(dir, "reopened.db");
    await (await openSqliteStore(path, { durability: "normal" })).close();
    const store = await openSqliteStore(path);
    expect(store.durabilityInForce()).toMatchObject({
      walSynced: "before each acknowledgement",
      checkpointAfterPages: 4000,
    });
    await store.close();
  });
});
