import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectSandbox, findExecutable, startSandboxProbe } from "./detect-sandbox.js";
import { describeSandbox } from "./sandbox.js";

const bin = mkdtempSync(join(tmpdir(), "holdfast-fake-bin-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** A fake `bwrap` on a PATH of its own, so these tests behave alike with and without bwrap. */
function fakeBwrap(script: string): string {
  const path = join(bin, "bwrap");
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return bin;
}

describe("detectSandbox", () => {
  it("runs unconfined when the operator chose mode none, without looking for bwrap", async () => {
    const detection = await detectSandbox("none", { env: { PATH: "" }, hiddenPaths: [] });
    expect(detection).toEqual({ ok: true, sandbox: { mode: "none" } });
    expect(describeSandbox(detection)).toContain("unconfined");
  });

  it("has no sandbox, and says what to do, when bwrap is not on PATH", async () => {
    const empty = mkdtempSync(join(tmpdir(), "holdfast-empty-bin-"));
    const detection = await detectSandbox("bwrap", { env: { PATH: empty }, hiddenPaths: [] });
    rmSync(empty, { recursive: true });
    expect(detection).toEqual({
      ok: false,
      reason:
        "no sandbox on this server: bwrap is not on PATH (install bubblewrap, or set " +
        "sandbox.mode: none in holdfast.yaml to run commands unconfined)",
    });
    expect(describeSandbox(detection)).toContain("shell not offered");
  });

  it("has no sandbox when bwrap fails its probe, and says how it failed", async () => {
    const path = fakeBwrap("echo 'bwrap: No permissions to create new namespace' >&2; exit 1");
    const detection = await detectSandbox("bwrap", { env: { PATH: path }, hiddenPaths: [] });
    expect(detection.ok).toBe(false);
    if (!detection.ok) {
      expect(detection.reason).toContain("failed its probe: bwrap: No permissions");
      expect(detection.reason).toContain("sandbox.mode: none");
    }
  });

  it("uses a bwrap that passes its probe, with the server paths to hide", async () => {
    // A bwrap that runs what follows `--`, as the real one does inside its namespaces.
    const path = fakeBwrap('while [ "$1" != "--" ]; do shift; done; shift; exec "$@"');
    const detection = await detectSandbox("bwrap", { env: { PATH: path }, hiddenPaths: ["/d"] });
    expect(detection).toEqual({
      ok: true,
      sandbox: { mode: "bwrap", bwrapPath: join(path, "bwrap"), hiddenPaths: ["/d"] },
    });
  });

  it("leaves no unhandled failure when a probe started early is never asked for", async () => {
    const own = mkdtempSync(join(tmpdir(), "holdfast-fake-bin-"));
    writeFileSync(join(own, "bwrap"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(own, "bwrap"), 0o755);
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = join(own, "missing"); // the probe cannot make its workspace
    try {
      startSandboxProbe({ PATH: own });
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    // A rejection nobody handles would fail this file; asking now gets the failure itself.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(detectSandbox("bwrap", { env: { PATH: own }, hiddenPaths: [] })).rejects.toThrow(
      /ENOENT/,
    );
    rmSync(own, { recursive: true, force: true });
  });

  it("uses a probe started early once, then probes again", async () => {
    // A bwrap that counts its runs, and fails from the second on.
    const runs = join(bin, "runs");
    writeFileSync(runs, "");
    const path = fakeBwrap(`echo run >> ${runs}; [ "$(wc -l < ${runs})" -eq 1 ]`);
    startSandboxProbe({ PATH: path });
    const first = await detectSandbox("bwrap", { env: { PATH: path }, hiddenPaths: [] });
    expect(first.ok).toBe(true);
    expect(readFileSync(runs, "utf8")).toBe("run\n");
    const second = await detectSandbox("bwrap", { env: { PATH: path }, hiddenPaths: [] });
    expect(second.ok).toBe(false);
    expect(readFileSync(runs, "utf8")).toBe("run\nrun\n");
  });
});

describe("findExecutable", () => {
  it("finds the first executable on PATH and skips relative directories", () => {
    fakeBwrap("exit 0");
    expect(findExecutable("bwrap", `.:relative:/nonexistent:${bin}`)).toBe(join(bin, "bwrap"));
    expect(findExecutable("bwrap", "")).toBeNull();
  });
});
