import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { z } from "zod";
import { HoldfastError } from "../../core/errors.js";

/** The lock itself: a tiny SQLite database its holder keeps exclusively locked. */
export const LOCK_FILE = "holdfast.lock";
/** Who holds the lock, for the message a refused process prints; never trusted as the lock. */
export const HOLDER_FILE = "holdfast.lock-holder";

/** SQLITE_BUSY: another connection holds a lock that conflicts with ours. */
const SQLITE_BUSY = 5;

/** The process that holds a data directory, as it wrote itself down. */
export const LockHolder = z.object({
  pid: z.int().positive(),
  host: z.string(),
  startedAt: z.string(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** A held data directory lock; `release` gives it up (process death does so too). */
export interface DataDirLock {
  release(): void;
}

export type LockOutcome =
  | { ok: true; lock: DataDirLock }
  | { ok: false; dataDir: string; holder: LockHolder | null };

/** A second server asked for a data directory another process holds. */
export class DataDirInUseError extends HoldfastError {
  readonly code = "DATA_DIR_IN_USE";
  readonly retryable = false;
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `process ${holder.pid} on ${holder.host} (started ${holder.startedAt})`
      : "another process";
    super(
      `data directory ${dataDir} is in use by ${who}; stop it or choose another data directory`,
    );
  }
}

/**
 * Takes the data directory for this process, so that at most one server writes it (one
 * activation per agent holds only within one process).
 *
 * The lock is SQLite's own file lock: a connection in `locking_mode = EXCLUSIVE` that has
 * written keeps its exclusive lock until it closes. The OS drops the lock when the process
 * dies, even by `kill -9`, so a crashed server never leaves a stale lock and no PID has to be
 * checked for liveness (PIDs are reused). The holder file only names the holder in messages.
 */
export function lockDataDir(dataDir: string): LockOutcome {
  const db = new DatabaseSync(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    // Nothing in this database matters; a journal in memory leaves no file behind.
    db.exec("PRAGMA journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE; PRAGMA user_version = 1; COMMIT");
  } catch (error) {
    db.close();
    if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
    return { ok: false, dataDir, holder: readHolder(dataDir) };
  }
  const holderPath = join(dataDir, HOLDER_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
  };
  writeFileSync(holderPath, `${JSON.stringify(holder)}\n`);
  let held = true;
  return {
    ok: true,
    lock: {
      release: () => {
        if (!held) return;
        held = false;
        rmSync(holderPath, { force: true });
        db.close();
      },
    },
  };
}

/** Like `lockDataDir`, but a directory in use is thrown as `DataDirInUseError`. */
export function lockDataDirOrThrow(dataDir: string): DataDirLock {
  const outcome = lockDataDir(dataDir);
  if (!outcome.ok) throw new DataDirInUseError(outcome.dataDir, outcome.holder);
  return outcome.lock;
}

/**
 * The holder as written down, or null if it is missing, half-written, or names a process of
 * this host that is gone: a server killed with `kill -9` leaves its file behind until the next
 * holder, which has the lock a moment before it writes its own, replaces it.
 */
function readHolder(dataDir: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = LockHolder.parse(JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), "utf8")));
  } catch {
    return null;
  }
  if (holder.host === hostname() && !isAlive(holder.pid)) return null;
  return holder;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
