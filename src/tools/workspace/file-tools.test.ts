import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext, ToolResult } from "../tool.js";
import {
  editFileImplementation,
  listDirectoryImplementation,
  readFileImplementation,
  searchFilesImplementation,
  writeFileImplementation,
} from "./file-tools.js";

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "holdfast-files-")));
  root = join(base, "workspace");
  await mkdir(root);
  await writeFile(join(base, "secret.txt"), "do not read");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A tool context on the test's workspace; the file tools never touch memory. */
function contextFor(workspace: Partial<ToolContext["workspace"]> = {}): ToolContext {
  return {
    agentId: "agent-test",
    workspace: { root, readOnly: false, network: false, ...workspace },
    memory: {} as AgentMemory,
    clock: systemClock,
    signal: new AbortController().signal,
    idempotencyKey: "call-1",
  };
}

const ok = (output: string): ToolResult => ({ status: "success", output });

describe("file tools", () => {
  it("writes, reads back and edits a file, creating its directories", async () => {
    const ctx = contextFor();
    const written = await writeFileImplementation.run(
      { path: "notes/today.md", content: "buy milk\nbuy bread\n" },
      ctx,
    );
    expect(written.status).toBe("success");
    const edited = await editFileImplementation.run(
      { path: "notes/today.md", old_str: "milk", new_str: "oat milk" },
      ctx,
    );
    expect(edited).toEqual(ok("replaced the text at line 1 of 'notes/today.md'"));
    const read = await readFileImplementation.run({ path: "notes/today.md" }, ctx);
    expect(read).toEqual(ok("buy oat milk\nbuy bread\n"));
  });

  it("refuses an edit whose old text does not occur, leaving the file alone", async () => {
    await writeFile(join(root, "a.txt"), "alpha beta");
    const result = await editFileImplementation.run(
      { path: "a.txt", old_str: "gamma", new_str: "delta" },
      contextFor(),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("does not occur");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("alpha beta");
  });

  it("refuses an edit whose old text occurs twice, leaving the file alone", async () => {
    await writeFile(join(root, "a.txt"), "beta alpha beta");
    const result = await editFileImplementation.run(
      { path: "a.txt", old_str: "beta", new_str: "delta" },
      contextFor(),
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("more than once");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("beta alpha beta");
  });

  it("inserts dollar signs in an edit literally", async () => {
    await writeFile(join(root, "a.txt"), "price: X");
    await editFileImplementation.run(
      { path: "a.txt", old_str: "X", new_str: "$& $1" },
      contextFor(),
    );
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("price: $& $1");
  });

  it("says a missing file does not exist", async () => {
    for (const result of [
      await readFileImplementation.run({ path: "nope.txt" }, contextFor()),
      await editFileImplementation.run(
        { path: "nope.txt", old_str: "a", new_str: "b" },
        contextFor(),
      ),
      await listDirectoryImplementation.run({ path: "nope" }, contextFor()),
    ]) {
      expect(result.status).toBe("error");
      expect(result.output).toContain("there is no file or directory");
    }
  });

  it("cuts a long file and says that it did", async () => {
    await writeFile(join(root, "big.txt"), "x".repeat(100_000));
    const result = await readFileImplementation.run({ path: "big.txt" }, contextFor());
    expect(result.status).toBe("success");
    expect(result.output).toContain("[truncated: showed the first 65536 of 100000 bytes]");
    expect(result.output.length).toBeLessThan(66_000);
  });

  it("refuses to show a binary file as text", async () => {
    await writeFile(join(root, "blob.bin"), Buffer.from([1, 2, 0, 3]));
    const result = await readFileImplementation.run({ path: "blob.bin" }, contextFor());
    expect(result.status).toBe("error");
    expect(result.output).toContain("binary");
  });

  it("lists a directory sorted, with a slash after subdirectories", async () => {
    await mkdir(join(root, "src"));
    await writeFile(join(root, "b.txt"), "");
    await writeFile(join(root, "a.txt"), "");
    const result = await listDirectoryImplementation.run({ path: "." }, contextFor());
    expect(result).toEqual(ok("a.txt\nb.txt\nsrc/"));
  });

  it("finds matching lines as path:line: text, skipping node_modules, .git and binaries", async () => {
    await mkdir(join(root, "src", "deep"), { recursive: true });
    await mkdir(join(root, "node_modules", "lib"), { recursive: true });
    await mkdir(join(root, ".git"));
    await writeFile(join(root, "src", "main.py"), "import os\ndef main():\n    pass\n");
    await writeFile(join(root, "src", "deep", "util.py"), "def helper():\n");
    await writeFile(join(root, "node_modules", "lib", "x.py"), "def vendored():\n");
    await writeFile(join(root, ".git", "config"), "def git():\n");
    await writeFile(join(root, "src", "data.bin"), Buffer.from("def binary():\0"));
    const result = await searchFilesImplementation.run({ pattern: "^def \\w+" }, contextFor());
    expect(result).toEqual(ok("src/deep/util.py:1: def helper():\nsrc/main.py:2: def main():"));
    const scoped = await searchFilesImplementation.run(
      { pattern: "import", path: "src" },
      contextFor(),
    );
    expect(scoped).toEqual(ok("src/main.py:1: import os"));
  });

  it("stops after too many matches and says so", async () => {
    await writeFile(join(root, "many.txt"), "hit\n".repeat(500));
    const result = await searchFilesImplementation.run({ pattern: "hit" }, contextFor());
    const lines = result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines.at(-1)).toContain("narrow the pattern");
  });

  it("reports an invalid regular expression as an error", async () => {
    const result = await searchFilesImplementation.run({ pattern: "(unclosed" }, contextFor());
    expect(result.status).toBe("error");
    expect(result.output).toContain("not a valid regular expression");
  });

  it("does not follow a symlink out of the workspace while searching", async () => {
    await symlink(base, join(root, "escape"));
    const result = await searchFilesImplementation.run({ pattern: "do not read" }, contextFor());
    expect(result.output).toContain("no line matches");
  });

  it("refuses paths that escape the workspace, through '..', an absolute path or a symlink", async () => {
    await symlink(join(base, "secret.txt"), join(root, "link.txt"));
    for (const path of ["../secret.txt", join(base, "secret.txt"), "link.txt"]) {
      const read = await readFileImplementation.run({ path }, contextFor());
      expect(read.status).toBe("error");
      expect(read.output).not.toContain("do not read");
      const write = await writeFileImplementation.run({ path, content: "pwned" }, contextFor());
      expect(write.status).toBe("error");
    }
    expect(await readFile(join(base, "secret.txt"), "utf8")).toBe("do not read");
  });

  it("refuses to write or edit in a read-only workspace, but still reads", async () => {
    await writeFile(join(root, "a.txt"), "alpha");
    const ctx = contextFor({ readOnly: true });
    const write = await writeFileImplementation.run({ path: "b.txt", content: "x" }, ctx);
    const edit = await editFileImplementation.run(
      { path: "a.txt", old_str: "a", new_str: "b" },
      ctx,
    );
    for (const result of [write, edit]) {
      expect(result.status).toBe("error");
      expect(result.output).toContain("read-only");
    }
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("alpha");
    expect(await readFileImplementation.run({ path: "a.txt" }, ctx)).toEqual(ok("alpha"));
  });

  it("refuses every file tool when the agent has no workspace", async () => {
    const ctx = contextFor({ root: null });
    const results = [
      await readFileImplementation.run({ path: "a.txt" }, ctx),
      await listDirectoryImplementation.run({ path: "." }, ctx),
      await searchFilesImplementation.run({ pattern: "x" }, ctx),
      await writeFileImplementation.run({ path: "a.txt", content: "x" }, ctx),
      await editFileImplementation.run({ path: "a.txt", old_str: "a", new_str: "b" }, ctx),
    ];
    for (const result of results) {
      expect(result.status).toBe("error");
      expect(result.output).toContain("no workspace");
    }
  });

  it("declares reads and whole-file writes idempotent, but not edits", () => {
    expect(readFileImplementation.idempotent).toBe(true);
    expect(listDirectoryImplementation.idempotent).toBe(true);
    expect(searchFilesImplementation.idempotent).toBe(true);
    expect(writeFileImplementation.idempotent).toBe(true);
    expect(editFileImplementation.idempotent).toBe(false);
  });
});
