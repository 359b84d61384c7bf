import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The project's `holdfast` executable, run by the same Node as the tests. */
export const HOLDFAST_BIN = fileURLToPath(new URL("../bin/holdfast.js", import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `holdfast ARGS` to completion (killed after `timeoutMs`, if given). */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [HOLDFAST_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Starts `holdfast serve ARGS` and resolves with its URL once its banner is complete (the model
 * line comes last): the banner's lines may arrive in separate chunks.
 */
export function startServer(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ url: string; process: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [HOLDFAST_BIN, "serve", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] && /\n {2}model: .*\n/.test(output))
        resolve({ url: match[1], process: child, output: () => output });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

/** Stops a server process and waits for it to exit. */
export function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
