import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/support/temp-dirs.js";
import {
  DataDirInUseError,
  HOLDER_FILE,
  lockDataDir,
  lockDataDirOrThrow,
} from "./data-dir-lock.js";

describe("data directory lock (issue #16)", () => {
  it("refuses a second holder, naming the first one's pid and host", () => {
    const dir = tempDir("holdfast-lock-");
    const first = lockDataDirOrThrow(dir);
    const second = lockDataDir(dir);
    expect(second).toMatchObject({
      ok: false,
      dataDir: dir,
      holder: { pid: process.pid, host: hostname() },
    });
    expect(() => lockDataDirOrThrow(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDirOrThrow(dir)).toThrow(`in use by process ${process.pid}`);
    first.release();
  });

  it("is free again once released, and the holder file is gone", () => {
    const dir = tempDir("holdfast-lock-");
    lockDataDirOrThrow(dir).release();
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
    const again = lockDataDir(dir);
    expect(again.ok).toBe(true);
    if (again.ok) again.lock.release();
  });

  // Above Linux's largest pid_max (2^22), so no process ever has it.
  const stale = { pid: 2 ** 22 + 1, host: hostname(), startedAt: "2020-01-01T00:00:00.000Z" };

  it("replaces the holder file a killed holder left behind", () => {
    const dir = tempDir("holdfast-lock-");
    writeFileSync(join(dir, HOLDER_FILE), JSON.stringify(stale));
    const lock = lockDataDirOrThrow(dir);
    expect(lockDataDir(dir)).toMatchObject({ ok: false, holder: { pid: process.pid } });
    lock.release();
  });

  it("does not name a process of this host that is gone", () => {
    const dir = tempDir("holdfast-lock-");
    const lock = lockDataDirOrThrow(dir);
    writeFileSync(join(dir, HOLDER_FILE), JSON.stringify(stale));
    expect(lockDataDir(dir)).toEqual({ ok: false, dataDir: dir, holder: null });
    lock.release();
  });

  it("names no one when the holder file is unreadable", () => {
    const dir = tempDir("holdfast-lock-");
    const lock = lockDataDirOrThrow(dir);
    writeFileSync(join(dir, HOLDER_FILE), "{half");
    expect(lockDataDir(dir)).toEqual({ ok: false, dataDir: dir, holder: null });
    expect(() => lockDataDirOrThrow(dir)).toThrow("in use by another process");
    lock.release();
  });
});
