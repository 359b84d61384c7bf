import { close, fdatasync, open } from "node:fs";
import type { DatabaseSync } from "node:sqlite";

/** Makes a file's written data durable: `fdatasync` of the WAL, unless a test counts it. */
export type SyncFile = () => Promise<void>;

/**
 * The WAL, opened at its first sync and kept open: an open and a close around every sync were
 * two more trips to the thread pool per acknowledgement. SQLite deletes the WAL only when its
 * connection closes, so the descriptor names the live file for as long as the store is open.
 * After a failed sync the descriptor is dropped and the next sync opens the file again. Through
 * node:fs's callbacks, not node:fs/promises: loading that took ~4 ms of the first turn. A raw
 * descriptor has none of a FileHandle's guards, so: `close` waits for the sync in flight (a
 * descriptor closed under it could be reused by another file, and that file synced instead),
 * a descriptor is closed once, by whoever drops it, and no sync opens the file after `close`.
 */
class HeldOpenWal {
  private fd: Promise<number> | null = null;
  private inFlight: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly path: string) {}

  readonly sync = (): Promise<void> => {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    const done = this.syncOpenFile();
    this.inFlight = done.catch(() => undefined);
    return done;
  };

  private async syncOpenFile(): Promise<void> {
    this.fd ??= settled<number>((done) => open(this.path, "r+", done));
    const fd = this.fd;
    try {
      const descriptor = await fd;
      await settled<void>((done) => fdatasync(descriptor, done));
    } catch (error) {
      if (this.fd === fd) {
        this.fd = null;
        await closeQuietly(fd);
      }
      throw error;
    }
  }

  readonly close = async (): Promise<void> => {
    this.closed = true;
    await this.inFlight;
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) await closeQuietly(fd);
  };
}

/** A node:fs callback call as a promise. */
function settled<T>(
  call: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) =>
    call((error, value) => (error ? reject(error) : resolve(value as T))),
  );
}

async function closeQuietly(fd: Promise<number>): Promise<void> {
  await fd.then(
    (descriptor) => settled<void>((done) => close(descriptor, done)).catch(() => undefined),
    () => undefined,
  );
}

/**
 * Flushes the write-ahead log when something is about to be acknowledged (durability `full`,
 * decision 030). The connection commits with `synchronous=NORMAL`: a commit is in the WAL, in
 * the operating system's cache, and survives the process dying. `flush` then syncs the WAL —
 * what `synchronous=FULL` would do after every commit — once for every commit made so far,
 * off the event loop, so concurrent callers share one sync and other agents run meanwhile.
 *
 * Whether anything is unflushed is read from SQLite (`total_changes()` of the connection), so
 * every write through it counts, whichever module made it; a flush with nothing new returns at
 * once. Callers arriving while a sync runs wait for it only if their commits are covered by it
 * (made before it started); otherwise they get the next one.
 */
export class WalFlusher {
  private readonly changes;
  private readonly sync: SyncFile;
  private readonly release: () => Promise<void>;
  private flushedChanges: number;
  private inFlight: { covers: number; done: Promise<void> } | null = null;
  /** How many syncs ran (tests and the bench count them). */
  syncs = 0;

  constructor(db: DatabaseSync, walPath: string, sync?: SyncFile) {
    const wal = new HeldOpenWal(walPath);
    this.sync = sync ?? wal.sync;
    this.release = wal.close;
    this.changes = db.prepare("SELECT total_changes() AS n");
    this.flushedChanges = this.current();
  }

  /** Syncs what is left, then closes the WAL's handle (before its connection closes). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.release();
    }
  }

  /** True when commits were made since the last sync began. */
  get dirty(): boolean {
    return this.current() > this.flushedChanges;
  }

  async flush(): Promise<void> {
    const wanted = this.current();
    while (this.flushedChanges < wanted) {
      const running = this.inFlight;
      if (running && running.covers >= wanted) return running.done;
      if (running) {
        await running.done.catch(() => undefined);
        continue;
      }
      await this.start(this.current());
    }
  }

  private start(covers: number): Promise<void> {
    const done = this.sync().then(
      () => {
        this.syncs += 1;
        this.flushedChanges = Math.max(this.flushedChanges, covers);
      },
      (error: unknown) => {
        throw new Error(`could not flush the write-ahead log to disk: ${String(error)}`);
      },
    );
    const entry = { covers, done };
    this.inFlight = entry;
    const clear = () => {
      if (this.inFlight === entry) this.inFlight = null;
    };
    done.then(clear, clear);
    return done;
  }

  private current(): number {
    return Number(this.changes.get()?.n ?? 0);
  }
}
