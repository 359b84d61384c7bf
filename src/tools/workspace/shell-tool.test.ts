import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext } from "../tool.js";
import { createShellImplementation, SHELL_OUTPUT_CAP_BYTES } from "./shell-tool.js";

/** Unconfined (`sandbox.mode: none`): these tests need no bubblewrap; test/sandbox covers it. */
const shellImplementation = createShellImplementation({ mode: "none" });

let root: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "holdfast-shell-")));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A tool context on the test's workspace; the shell never touches memory. */
function contextFor(
  workspace: Partial<ToolContext["workspace"]> = {},
  signal = new AbortController().signal,
): ToolContext {
  return {
    agentId: "agent-test",
    workspace: { root, readOnly: false, network: false, ...workspace },
    memory: {} as AgentMemory,
    clock: systemClock,
    signal,
    idempotencyKey: "call-1",
  };
}

/** Whether a process is gone; a zombie no one has reaped yet counts as gone. */
async function isGone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || / Z /.test(stat);
}

describe("shell tool", () => {
  it("runs a command in the workspace root and reports its exit code", async () => {
    const result = await shellImplementation.run({ command: "pwd; echo hi >&2" }, contextFor());
    expect(result).toEqual({ status: "success", output: `exit code: 0\n${root}\nhi\n` });
  });

  it("reports a failing command as an error with its exit code", async () => {
    const result = await shellImplementation.run({ command: "echo oops; exit 3" }, contextFor());
    expect(result).toEqual({ status: "error", output: "exit code: 3\noops\n" });
  });

  it("kills a command that runs past its timeout and says so", async () => {
    const result = await shellImplementation.run(
      { command: "echo started; sleep 5", timeout_ms: 200 },
      contextFor(),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("timed out after 200 ms");
    expect(result.output).toContain("started");
  });

  it.skipIf(!existsSync("/proc"))("kills the whole process group on timeout", async () => {
    const result = await shellImplementation.run(
      { command: "sh -c 'echo $$ > child.pid; exec sleep 30' & sleep 5", timeout_ms: 300 },
      contextFor(),
    );
    expect(result.output).toContain("timed out");
    const pid = Number(await readFile(join(root, "child.pid"), "utf8"));
    for (let tries = 0; tries < 50 && !(await isGone(pid)); tries += 1) {
      await systemClock.sleep(20);
    }
    expect(await isGone(pid)).toBe(true);
  });

  it("kills the command when the call is aborted", async () => {
    const controller = new AbortController();
    const running = shellImplementation.run(
      { command: "sleep 5" },
      contextFor({}, controller.signal),
    );
    setTimeout(() => controller.abort(new Error("cancelled by the user")), 100);
    const result = await running;
    expect(result.status).toBe("error");
    expect(result.output).toContain("cancelled");
  });

  it("does not start a command when the call is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await shellImplementation.run(
      { command: "touch ran" },
      contextFor({}, controller.signal),
    );
    expect(result.output).toContain("cancelled before it started");
    expect(existsSync(join(root, "ran"))).toBe(false);
  });

  it("cuts long output and says how much was left out", async () => {
    const result = await shellImplementation.run(
      { command: "head -c 100000 /dev/zero | tr '\\0' a" },
      contextFor(),
    );
    expect(result.status).toBe("success");
    expect(result.output).toContain(`${100_000 - SHELL_OUTPUT_CAP_BYTES} more bytes not shown`);
    expect(result.output.length).toBeLessThan(SHELL_OUTPUT_CAP_BYTES + 200);
  });

  it("runs with a scrubbed environment that holds none of the server's secrets", async () => {
    process.env.HOLDFAST_TEST_SECRET = "hunter2";
    try {
      const result = await shellImplementation.run({ command: "env" }, contextFor());
      expect(result.status).toBe("success");
      expect(result.output).not.toContain("HOLDFAST_TEST_SECRET");
      expect(result.output).not.toContain("hunter2");
      expect(result.output).not.toContain("OPENAI_API_KEY");
      expect(result.output).toContain(`HOME=${root}\n`);
      expect(result.output).toContain("TERM=dumb\n");
      expect(result.output).toContain("LC_ALL=C.UTF-8\n");
    } finally {
      delete process.env.HOLDFAST_TEST_SECRET;
    }
  });

  it("refuses to run in a read-only workspace", async () => {
    const result = await shellImplementation.run(
      { command: "touch ran" },
      contextFor({ readOnly: true }),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("read-only");
    expect(existsSync(join(root, "ran"))).toBe(false);
  });

  it("refuses to run when the agent has no workspace", async () => {
    const result = await shellImplementation.run({ command: "true" }, contextFor({ root: null }));
    expect(result.status).toBe("error");
    expect(result.output).toContain("no workspace");
  });

  it("is not idempotent: running a command twice may do twice the work", () => {
    expect(shellImplementation.idempotent).toBe(false);
  });
});
