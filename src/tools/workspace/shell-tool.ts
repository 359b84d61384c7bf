import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import type { Clock } from "../../core/clock.js";
import { shellTool } from "../builtin/workspace-tools.js";
import { type Launch, launchCommand } from "../sandbox/launch.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { failure, implementTool, success, type ToolResult } from "../tool.js";

/** How long a command may run when the model does not say. */
export const SHELL_DEFAULT_TIMEOUT_MS = 30_000;
/** The longest a command may run; also the tool's own timeout in the loop. */
export const SHELL_MAX_TIMEOUT_MS = 120_000;
/** How much of the combined stdout and stderr the model sees. */
export const SHELL_OUTPUT_CAP_BYTES = 32 * 1024;
/** How a command ended, with the start of its interleaved stdout and stderr. */
export interface CommandOutcome {
  readonly end: "exited" | "timed_out" | "aborted";
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  readonly output: string;
  /** Bytes of output past the cap that were dropped. */
  readonly droppedBytes: number;
}

/**
 * Runs a launched command in its own process group, so that on timeout or abort the whole group
 * (the shell, or bwrap, and everything it started) is killed, not just the first process. Under
 * bwrap, killing bwrap also ends its PID namespace, which takes along processes that left the
 * group with `setsid`.
 */
export function runCommand(
  launch: Launch,
  options: { timeoutMs: number; clock: Clock; signal: AbortSignal },
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = captureOutput(SHELL_OUTPUT_CAP_BYTES);
    child.stdout.on("data", output.add);
    child.stderr.on("data", output.add);

    let end: CommandOutcome["end"] = "exited";
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
      // A process that left the group could hold the pipes open; stop waiting for it.
      if (end !== "exited" && exited()) {
        child.stdout.destroy();
        child.stderr.destroy();
      }
    };
    const stop = (why: "timed_out" | "aborted") => {
      if (end !== "exited") return;
      end = why;
      killGroup();
    };
    const onAbort = () => stop("aborted");
    const timer = new AbortController();
    void options.clock.sleep(options.timeoutMs, timer.signal).then(
      () => stop("timed_out"),
      () => {},
    );
    options.signal.addEventListener("abort", onAbort, { once: true });
    const cleanUp = () => {
      timer.abort();
      options.signal.removeEventListener("abort", onAbort);
    };
    // Background jobs left behind would outlive the call and keep the pipes open.
    child.on("exit", killGroup);
    child.once("error", (error) => {
      cleanUp();
      reject(error);
    });
    child.once("close", (exitCode, exitSignal) => {
      cleanUp();
      resolve({ end, exitCode, exitSignal, ...output.result() });
    });
  });
}

/** Keeps the first `capBytes` of a stream of chunks and counts the rest. */
function captureOutput(capBytes: number) {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let droppedBytes = 0;
  return {
    add: (chunk: Buffer) => {
      const part = chunk.subarray(0, capBytes - keptBytes);
      kept.push(part);
      keptBytes += part.length;
      droppedBytes += chunk.length - part.length;
    },
    // A streaming decode drops a character cut in half at the cap instead of showing garbage.
    result: () => ({
      output: new TextDecoder().decode(Buffer.concat(kept), { stream: true }),
      droppedBytes,
    }),
  };
}

function describe(outcome: CommandOutcome, timeoutMs: number): ToolResult {
  const dropped =
    outcome.droppedBytes > 0
      ? `\n[output truncated: ${outcome.droppedBytes} more bytes not shown]`
      : "";
  const output = outcome.output === "" && dropped === "" ? "(no output)" : outcome.output + dropped;
  switch (outcome.end) {
    case "timed_out":
      return failure(`the command timed out after ${timeoutMs} ms and was killed\n${output}`);
    case "aborted":
      return failure(`the command was cancelled and killed\n${output}`);
    case "exited": {
      const status =
        outcome.exitCode === null
          ? `killed by signal ${outcome.exitSignal}`
          : `exit code: ${outcome.exitCode}`;
      const text = `${status}\n${output}`;
      // A failing command is an error result, so the model gets a step to react to it.
      return outcome.exitCode === 0 ? success(text) : failure(text);
    }
  }
}

/**
 * The shell tool: one command in the workspace, with a timeout and a scrubbed environment, run
 * under `sandbox` (bubblewrap, or unconfined only when the operator chose `sandbox.mode: none`).
 */
export function createShellImplementation(sandbox: Sandbox) {
  return implementTool(
    shellTool,
    { idempotent: false, timeoutMs: SHELL_MAX_TIMEOUT_MS },
    async ({ command, timeout_ms }, context) => {
      const { root, readOnly, network } = context.workspace;
      if (root === null) return failure("this agent has no workspace, so it cannot run commands");
      if (readOnly) {
        return failure(
          "the workspace is read-only for this agent and a command could change it; " +
            "use read_file, list_directory or search_files instead",
        );
      }
      if (context.signal.aborted) return failure("the command was cancelled before it started");
      const isDirectory = await stat(root).then(
        (stats) => stats.isDirectory(),
        () => false,
      );
      if (!isDirectory) return failure("the workspace root does not exist; ask an operator");
      const timeoutMs = Math.min(timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS, SHELL_MAX_TIMEOUT_MS);
      try {
        const outcome = await runCommand(launchCommand(sandbox, command, { root, network }), {
          timeoutMs,
          clock: context.clock,
          signal: context.signal,
        });
        return describe(outcome, timeoutMs);
      } catch (error) {
        return failure(`the command could not be started: ${(error as Error).message}`);
      }
    },
  );
}
