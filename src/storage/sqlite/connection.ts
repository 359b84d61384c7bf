import { DatabaseSync } from "node:sqlite";
import { assert } from "../../core/errors.js";
import type { Durability } from "../durability.js";
import { migrate } from "./migrations.js";

/** How long a writer waits for another process's lock before the store reports busy. */
const BUSY_TIMEOUT_MS = 5_000;
/** How much of the database file reads may map instead of copying (pages only, not writes). */
const MMAP_BYTES = 1 << 30;

/**
 * SQLite's `synchronous` level: NORMAL for both durabilities. In WAL mode a commit is then in
 * the WAL, in the operating system's cache: it survives the process dying, and the WAL is
 * synced at checkpoints. With `full`, the store also syncs the WAL before anything is
 * acknowledged (`wal-flush.ts`, decision 030), which is what FULL would do after every commit,
 * once for all the commits made since.
 */
const SYNCHRONOUS: Record<Durability, number> = { full: 1, normal: 1 };
const SYNCHRONOUS_NAMES = ["OFF", "NORMAL", "FULL", "EXTRA"] as const;

/**
 * WAL frames (pages) after which a commit copies the WAL into the database (SQLite's default is
 * 1,000). That checkpoint runs inside the commit, on the event loop: it syncs the WAL, copies
 * each page once however often the WAL holds it, and syncs the database. With `full` the WAL
 * is already synced (the flusher did it before each acknowledgement), so a checkpoint costs the
 * copy and one sync, and a longer WAL shares them among more commits: the same pages are
 * rewritten by every step of an agent. 4,000 frames (16 MB) keeps the WAL's index within its
 * first 32 KB block. With `normal` the checkpoint syncs the unsynced WAL itself, so its pause
 * grows with the WAL: that one stays at the default (10 ms pauses at 1,000 frames, 37 at 4,000).
 */
const CHECKPOINT_FRAMES: Record<Durability, number> = { full: 4_000, normal: 1_000 };

/** What a connection actually runs with, read back from SQLite rather than assumed. */
export interface DurabilityInForce {
  durability: Durability;
  /** `PRAGMA synchronous` as SQLite reports it: OFF, NORMAL, FULL or EXTRA. */
  synchronous: string;
  /** `PRAGMA journal_mode`: `wal` for a file, `memory` for `:memory:`. */
  journalMode: string;
  /** When the WAL reaches the disk: before each acknowledgement (`full`), or at checkpoints. */
  walSynced: "before each acknowledgement" | "at checkpoints";
  /** `PRAGMA wal_autocheckpoint`: the WAL's pages after which a commit checkpoints it. */
  checkpointAfterPages: number;
}

/** Opens the store's connection with the pragmas it relies on and an up-to-date schema. */
export function openConnection(path: string, durability: Durability): DatabaseSync {
  const db = new DatabaseSync(path, {
    timeout: BUSY_TIMEOUT_MS,
    enableForeignKeyConstraints: true,
    // For sqlite-vec only: `loadVectorFunctions` loads it and turns loading off again.
    allowExtension: true,
  });
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${SYNCHRONOUS[durability]}`);
    db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_FRAMES[durability]}`);
    db.exec("PRAGMA foreign_keys = ON");
    // Vector search reads every vector of an agent (150 MB at 100k passages of 384 floats):
    // through mmap rather than a read call per page, it runs several times faster.
    db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
    // Group commit writes each step inside its own savepoint, and SQLite keeps the pages a
    // savepoint would restore in a sub-journal that spills to a temporary file past 64 KiB: a
    // batch of a hundred steps wrote files nobody ever reads back. In memory, 100 agents × 20
    // turns ran ~28% more turns a second (`bench --scenario concurrent100`, paired).
    db.exec("PRAGMA temp_store = MEMORY");
    // A pragma SQLite does not know is silently ignored; make sure this one took.
    assert(synchronousLevel(db) === SYNCHRONOUS[durability], "PRAGMA synchronous did not apply");
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Reads the durability a connection runs with. */
export function durabilityInForce(db: DatabaseSync, durability: Durability): DurabilityInForce {
  const level = synchronousLevel(db);
  const journal = db.prepare("PRAGMA journal_mode").get()?.journal_mode;
  return {
    durability,
    synchronous: SYNCHRONOUS_NAMES[level] ?? String(level),
    journalMode: String(journal),
    walSynced: durability === "full" ? "before each acknowledgement" : "at checkpoints",
    checkpointAfterPages: Number(db.prepare("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint),
  };
}

function synchronousLevel(db: DatabaseSync): number {
  return Number(db.prepare("PRAGMA synchronous").get()?.synchronous);
}
