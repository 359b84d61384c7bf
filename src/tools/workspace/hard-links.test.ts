import { link, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext } from "../tool.js";
import {
  editFileImplementation,
  listDirectoryImplementation,
  readFileImplementation,
  searchFilesImplementation,
  writeFileImplementation,
} from "./file-tools.js";

let base: string;
let root: string;
let secret: string;

/** A workspace holding `linked.txt`, a hard link to `secret.txt` beside (outside) it. */
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "holdfast-links-")));
  root = join(base, "workspace");
  secret = join(base, "secret.txt");
  await mkdir(join(root, "docs"), { recursive: true });
  await writeFile(secret, "do not read\n");
  await link(secret, join(root, "docs", "linked.txt"));
  await writeFile(join(root, "docs", "own.txt"), "do not worry\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const context = (): ToolContext => ({
  agentId: "agent-test",
  workspace: { root, readOnly: false, network: false },
  memory: {} as AgentMemory,
  clock: systemClock,
  signal: new AbortController().signal,
  idempotencyKey: "call-1",
});

const REFUSAL =
  "'docs/linked.txt' has other hard links; it may be a link to a file outside the workspace";

// Issue #16, point 7: a hard link inside the workspace reached a file outside it.
describe("a hard link inside the workspace to a file outside it", () => {
  it("is refused by read_file", async () => {
    const result = await readFileImplementation.run({ path: "docs/linked.txt" }, context());
    expect(result.status).toBe("error");
    expect(result.output).toContain(REFUSAL);
    expect(result.output).not.toContain("do not read");
  });

  it("is refused by write_file, which leaves the outside file as it was", async () => {
    const result = await writeFileImplementation.run(
      { path: "docs/linked.txt", content: "pwned" },
      context(),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain(REFUSAL);
    expect(await readFile(secret, "utf8")).toBe("do not read\n");
  });

  it("is refused by edit_file, which leaves the outside file as it was", async () => {
    const result = await editFileImplementation.run(
      { path: "docs/linked.txt", old_str: "not", new_str: "now" },
      context(),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain(REFUSAL);
    expect(await readFile(secret, "utf8")).toBe("do not read\n");
  });

  it("is refused by search_files when named, and skipped (and named) when under a directory", async () => {
    const named = await searchFilesImplementation.run(
      { pattern: "do", path: "docs/linked.txt" },
      context(),
    );
    expect(named.status).toBe("error");
    expect(named.output).toContain(REFUSAL);
    const walked = await searchFilesImplementation.run({ pattern: "do", path: "docs" }, context());
    expect(walked.status).toBe("success");
    expect(walked.output).toContain("docs/own.txt:1: do not worry");
    expect(walked.output).not.toContain("do not read");
    expect(walked.output).toContain("skipped, since they have other hard links: docs/linked.txt");
  });

  it("is listed by list_directory, which opens nothing", async () => {
    const result = await listDirectoryImplementation.run({ path: "docs" }, context());
    expect(result).toEqual({ status: "success", output: "linked.txt\nown.txt" });
  });

  it("still lets the tools write a new file and overwrite a single-named one", async () => {
    for (const path of ["docs/new.txt", "docs/own.txt"]) {
      const result = await writeFileImplementation.run({ path, content: "fresh" }, context());
      expect(result.status).toBe("success");
      expect(await readFile(join(root, path), "utf8")).toBe("fresh");
    }
  });
});
