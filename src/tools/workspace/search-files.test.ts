import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext } from "../tool.js";
import { searchFilesImplementation } from "./search-files.js";

let root: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "holdfast-search-")));
  await mkdir(root, { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const context = (signal = new AbortController().signal): ToolContext => ({
  agentId: "agent-test",
  workspace: { root, readOnly: false, network: false },
  memory: {} as AgentMemory,
  clock: systemClock,
  signal,
  idempotencyKey: "call-1",
});

/** Lines a backtracking engine needs exponential time for under `^(a+)+$`. */
const evilLines = (count: number) => `${"a".repeat(40)}!\n`.repeat(count);

/** Text on which even a linear-time engine spends seconds under a pattern with many states. */
const slowText = () =>
  Array.from({ length: 20 }, () =>
    Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join(""),
  ).join("\n");

// Issue #16, point 4: one agent's pattern stalled every request on the server.
describe("search_files patterns", () => {
  it("runs a catastrophic backtracking pattern in linear time", async () => {
    await writeFile(join(root, "evil.txt"), evilLines(2000));
    await writeFile(join(root, "fine.txt"), `${"a".repeat(40)}\n`);
    const result = await searchFilesImplementation.run({ pattern: "^(a+)+$" }, context());
    expect(result).toEqual({ status: "success", output: `fine.txt:1: ${"a".repeat(40)}` });
  });

  it("leaves the event loop free while matching, and stops the match when its signal aborts", async () => {
    await writeFile(join(root, "slow.txt"), slowText());
    const controller = new AbortController();
    // This timer can fire only if the search leaves the event loop free.
    const ticks: string[] = [];
    setTimeout(() => {
      ticks.push("timer fired");
      controller.abort(new Error("timeout"));
    }, 50);
    const result = await searchFilesImplementation.run(
      { pattern: "(.*.*.*a){300}x" },
      context(controller.signal),
    );
    expect(ticks).toEqual(["timer fired"]);
    expect(result.status).toBe("error");
    expect(result.output).toContain("the search was stopped");
  });

  it("explains a pattern RE2 does not support, as a tool error", async () => {
    for (const pattern of ["(?<=a)b", "(a)\\1", "(unclosed"]) {
      const result = await searchFilesImplementation.run({ pattern }, context());
      expect(result.status).toBe("error");
      expect(result.output).toContain("not a valid regular expression (RE2 syntax");
    }
  });

  it("refuses an overlong pattern", async () => {
    const result = await searchFilesImplementation.run({ pattern: "a".repeat(1001) }, context());
    expect(result.status).toBe("error");
    expect(result.output).toContain("over 1000 characters");
  });

  it("answers at once when the run was already cancelled", async () => {
    await writeFile(join(root, "a.txt"), "a\n");
    const controller = new AbortController();
    controller.abort();
    const result = await searchFilesImplementation.run(
      { pattern: "a" },
      context(controller.signal),
    );
    expect(result.output).toContain("the search was stopped");
  });
});
