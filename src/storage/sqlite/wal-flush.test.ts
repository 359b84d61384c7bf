import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { WalFlusher } from "./wal-flush.js";

/** A connection with a table to write, and a sync that waits until the test releases it. */
function rig() {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (n INTEGER)");
  const write = () => db.prepare("INSERT INTO t (n) VALUES (1)").run();
  const releases: (() => void)[] = [];
  const synced: number[] = [];
  const changes = () => Number(db.prepare("SELECT total_changes() AS n").get()?.n);
  const flusher = new WalFlusher(db, "unused", async () => {
    const covered = changes();
    await new Promise<void>((release) => releases.push(release));
    synced.push(covered);
  });
  const release = async () => {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { flusher, write, release, releases, synced };
}

describe("WalFlusher", () => {
  it("syncs nothing when nothing was written", async () => {
    const { flusher, releases } = rig();
    await flusher.flush();
    expect(releases).toHaveLength(0);
    expect(flusher.dirty).toBe(false);
  });

  it("shares one sync among every caller whose commits it covers", async () => {
    const { flusher, write, release, releases } = rig();
    write();
    write();
    const waiting = [flusher.flush(), flusher.flush(), flusher.flush()];
    expect(releases).toHaveLength(1);
    await release();
    await Promise.all(waiting);
    expect(flusher.syncs).toBe(1);
    expect(flusher.dirty).toBe(false);
  });

  it("never resolves a caller with a sync that began before its commit", async () => {
    const { flusher, write, release, releases, synced } = rig();
    write();
    const first = flusher.flush();
    write(); // made while the first sync runs: not covered by it
    let secondDone = false;
    const second = flusher.flush().then(() => {
      secondDone = true;
    });
    await release();
    await first;
    expect(secondDone).toBe(false);
    expect(releases).toHaveLength(1);
    await release();
    await second;
    expect(synced).toEqual([1, 2]);
    expect(flusher.syncs).toBe(2);
  });

  it("reports a failed sync to its callers and tries again on the next flush", async () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE t (n INTEGER)");
    let fail = true;
    const flusher = new WalFlusher(db, "unused", async () => {
      if (fail) throw new Error("EIO");
    });
    db.exec("INSERT INTO t (n) VALUES (1)");
    await expect(flusher.flush()).rejects.toThrow(/could not flush the write-ahead log.*EIO/);
    expect(flusher.dirty).toBe(true);
    fail = false;
    await flusher.flush();
    expect(flusher.dirty).toBe(false);
  });

  it("syncs a real WAL through one handle, closed with the flusher", () =>
    withRealWal(async ({ flusher, write, walHandles }) => {
      const sqliteOwn = walHandles();
      for (let i = 0; i < 3; i += 1) {
        write();
        await flusher.flush();
      }
      expect(flusher.syncs).toBe(3);
      expect(walHandles()).toBe(sqliteOwn + 1);
      write();
      await flusher.close();
      expect(flusher.syncs).toBe(4);
      expect(walHandles()).toBe(sqliteOwn);
    }));

  it("closes the WAL's descriptor once, after the sync in flight, and opens it for no sync after", () =>
    withRealWal(async ({ flusher, write, walHandles }) => {
      const sqliteOwn = walHandles();
      write();
      await flusher.flush();
      write();
      const closing = flusher.close();
      write(); // committed while the store closes: its flush may sync or be refused
      const late = flusher.flush().then(
        () => "synced",
        (error: unknown) => String(error),
      );
      await closing;
      expect(await late).toMatch(/synced|closed/);
      expect(walHandles()).toBe(sqliteOwn);
      write();
      await expect(flusher.flush()).rejects.toThrow(/closed/);
      expect(walHandles()).toBe(sqliteOwn);
    }));
});

/** A WAL database on disk with its flusher, and how many descriptors name its WAL file. */
async function withRealWal(
  test: (rig: {
    flusher: WalFlusher;
    write: () => void;
    walHandles: () => number;
  }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-wal-"));
  const path = join(dir, "store.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE t (n INTEGER)");
  const walHandles = () =>
    readdirSync("/proc/self/fd").filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === `${path}-wal`;
      } catch {
        return false; // the directory's own descriptor, gone once listed
      }
    }).length;
  try {
    // The flusher opens the WAL at its first sync: until then only SQLite's descriptors name it.
    const flusher = new WalFlusher(db, `${path}-wal`);
    await test({ flusher, write: () => db.exec("INSERT INTO t (n) VALUES (1)"), walHandles });
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
