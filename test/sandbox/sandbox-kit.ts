import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { systemClock } from "../../src/core/clock.js";
import type { AgentMemory } from "../../src/memory/agent-memory.js";
import { detectSandbox } from "../../src/tools/sandbox/detect-sandbox.js";
import type { Sandbox } from "../../src/tools/sandbox/sandbox.js";
import type { ToolContext, ToolResult } from "../../src/tools/tool.js";
import { createShellImplementation } from "../../src/tools/workspace/shell-tool.js";

/** What another tenant said; no command of agent A may ever print it. */
export const TENANT_SECRET = "tenant-b-says-the-launch-code-is-0000";

/**
 * A server's data directory as `assemble` lays it out: the SQLite database (holding another
 * tenant's message) and one workspace per agent, A's and B's. B's holds a private file.
 */
export function serverLayout() {
  const dataDir = mkdtempSync(join(tmpdir(), "holdfast-sandbox-data-"));
  const database = join(dataDir, "holdfast.db");
  const db = new DatabaseSync(database);
  db.exec("CREATE TABLE messages (agent_id TEXT, content TEXT)");
  db.prepare("INSERT INTO messages VALUES (?, ?)").run("agent-b", TENANT_SECRET);
  db.close();
  const workspaceA = join(dataDir, "workspaces", "agent-a");
  const workspaceB = join(dataDir, "workspaces", "agent-b");
  mkdirSync(workspaceA, { recursive: true });
  mkdirSync(workspaceB, { recursive: true });
  writeFileSync(join(workspaceB, "private.txt"), TENANT_SECRET);
  return {
    dataDir,
    database,
    workspaceA,
    workspaceB,
    remove: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** The bubblewrap sandbox as the server detects it, hiding `dataDir`; fails without bwrap. */
export async function bwrapSandbox(dataDir: string): Promise<Sandbox> {
  const detection = await detectSandbox("bwrap", { env: process.env, hiddenPaths: [dataDir] });
  if (!detection.ok) throw new Error(`these tests need bubblewrap: ${detection.reason}`);
  return detection.sandbox;
}

/** Runs one shell call as agent A would: in its workspace, under `sandbox`. */
export function runShell(
  sandbox: Sandbox,
  root: string,
  command: string,
  options: { network?: boolean; timeoutMs?: number } = {},
): Promise<ToolResult> {
  const context: ToolContext = {
    agentId: "agent-a",
    workspace: { root, readOnly: false, network: options.network ?? false },
    memory: {} as AgentMemory,
    clock: systemClock,
    signal: new AbortController().signal,
    idempotencyKey: "call-1",
  };
  const args =
    options.timeoutMs === undefined ? { command } : { command, timeout_ms: options.timeoutMs };
  return createShellImplementation(sandbox).run(args, context);
}

/** The host PIDs of live processes whose command line contains `marker` (zombies excluded). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmdline.includes(marker) && state !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Waits until no process with `marker` is left, or `timeoutMs` passes; returns those left. */
export async function survivorsAfter(marker: string, timeoutMs = 5_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  let left = processesWith(marker);
  while (left.length > 0 && Date.now() < until) {
    await systemClock.sleep(50);
    left = processesWith(marker);
  }
  return left;
}
