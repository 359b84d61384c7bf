import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { bwrapArguments } from "./bwrap-args.js";
import { SAFE_PATH } from "./launch.js";
import type { SandboxDetection, SandboxMode } from "./sandbox.js";

const PROBE_TIMEOUT_MS = 10_000;
const ADVICE =
  "install bubblewrap, or set sandbox.mode: none in holdfast.yaml to run commands unconfined";

/** What the shell's absence is reported as when there is no sandbox, with what to do about it. */
export const noSandboxReason = (why: string) => `no sandbox on this server: ${why} (${ADVICE})`;

/**
 * Decides how the shell runs here. With mode `none` the operator has chosen no sandbox. With
 * `bwrap`, the binary must be on PATH and must run a command with exactly the arguments the
 * shell uses (user namespaces may be off, or a container may forbid mounts); otherwise there is
 * no sandbox, and the caller withholds the shell with the reason returned.
 */
export async function detectSandbox(
  mode: SandboxMode,
  options: { env: NodeJS.ProcessEnv; hiddenPaths: readonly string[] },
): Promise<SandboxDetection> {
  if (mode === "none") return { ok: true, sandbox: { mode: "none" } };
  const bwrapPath = findExecutable("bwrap", options.env.PATH ?? "");
  if (bwrapPath === null) return { ok: false, reason: noSandboxReason("bwrap is not on PATH") };
  const early = earlyProbes.get(bwrapPath);
  earlyProbes.delete(bwrapPath);
  const failed = await (early ?? probeBwrap(bwrapPath));
  if (failed !== null) {
    return { ok: false, reason: noSandboxReason(`${bwrapPath} failed its probe: ${failed}`) };
  }
  return { ok: true, sandbox: { mode: "bwrap", bwrapPath, hiddenPaths: options.hiddenPaths } };
}

/** Probes started before they were asked for, by bwrap binary; each is used once. */
const earlyProbes = new Map<string, Promise<string | null>>();

/**
 * Starts probing the bwrap on PATH now, so that the next `detectSandbox` finds the answer
 * ready: the probe is a process of its own (~40 ms here), and a server starts it before loading
 * its modules, which then load meanwhile.
 */
export function startSandboxProbe(env: NodeJS.ProcessEnv = process.env): void {
  const bwrapPath = findExecutable("bwrap", env.PATH ?? "");
  if (bwrapPath === null || earlyProbes.has(bwrapPath)) return;
  const probe = probeBwrap(bwrapPath);
  // Nobody may ask (a config with `sandbox.mode: none`): its failure must not go unhandled.
  probe.catch(() => {});
  earlyProbes.set(bwrapPath, probe);
}

/** The first executable file called `name` in the directories of `path`, or `null`. */
export function findExecutable(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next directory.
    }
  }
  return null;
}

/** Runs `true` in a sandbox over an empty workspace; `null` if it worked, else why not. */
async function probeBwrap(bwrapPath: string): Promise<string | null> {
  // Synchronous up to the spawn: a probe started early runs while modules load, and no event
  // loop turn comes before they have.
  const workspace = mkdtempSync(join(tmpdir(), "holdfast-sandbox-probe-"));
  const env = { PATH: SAFE_PATH };
  const args = bwrapArguments({ workspaceRoot: workspace, network: false, hiddenPaths: [], env }, [
    "/bin/sh",
    "-c",
    "true",
  ]);
  try {
    return await new Promise<string | null>((resolve) => {
      execFile(bwrapPath, args, { env, timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
        if (!error) return resolve(null);
        const firstLine = stderr.trim().split("\n")[0];
        resolve(firstLine || error.message);
      });
    });
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
