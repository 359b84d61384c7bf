import { describe, expect, it } from "vitest";
import type { AgentFileState } from "../records/folder.js";
import { chunkText, fileLines, truncateView, viewFile } from "./file-view.js";
import { attachFiles, openFile } from "./open-files.js";

const TEXT = "# Title\n\nfirst line   \n  indented\n\nlast";

describe("file views, as Letta numbers lines", () => {
  it("numbers the non-empty lines from 1 under a header", () => {
    expect(fileLines(TEXT)).toEqual(["# Title", "first line", "  indented", "last"]);
    const view = viewFile("d/a.md", TEXT);
    expect(view).toMatchObject({ ok: true, startLine: null, endLine: null });
    expect(view.ok && view.text).toBe(
      "[Viewing file start (out of 4 lines)]\n1: # Title\n2: first line\n3:   indented\n4: last",
    );
  });

  it("views a range, and refuses one that starts past the end or is negative", () => {
    const view = viewFile("d/a.md", TEXT, { offset: 1, length: 2 });
    expect(view.ok && view.text).toBe(
      "[Viewing lines 2 to 3 (out of 4 lines)]\n2: first line\n3:   indented",
    );
    expect(view).toMatchObject({ startLine: 2, endLine: 3 });
    expect(viewFile("d/a.md", TEXT, { offset: 4 })).toEqual({
      ok: false,
      error: "File d/a.md has only 4 lines, but requested offset 5 is out of range",
    });
    expect(viewFile("d/a.md", TEXT, { offset: -1 }).ok).toBe(false);
    expect(viewFile("d/a.md", TEXT, { length: 0 }).ok).toBe(false);
  });

  it("cuts a long view to its window with Letta's note, and chunks by whole lines", () => {
    const cut = truncateView("x".repeat(500), 200);
    expect(cut).toHaveLength(200);
    expect(cut.endsWith("use functions to view the full content.")).toBe(true);
    const chunks = chunkText(
      Array.from({ length: 30 }, (_, i) => `line ${i} ${"w".repeat(90)}`).join("\n"),
    );
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.length <= 1_000)).toBe(true);
    expect(chunks.join("\n").split("\n")).toHaveLength(30);
    expect(chunkText("y".repeat(2_500))).toHaveLength(3);
  });
});

function row(n: number, open: boolean, usedMs: number): AgentFileState {
  return {
    id: `fa-${n}`,
    agent_id: "agent-1",
    file_id: `file-${n}`,
    folder_id: "f",
    file_name: `f/${n}.md`,
    is_open: open,
    visible_content: open ? "1: x" : null,
    start_line: null,
    end_line: null,
    last_accessed_ms: usedMs,
  };
}

describe("open files, at most the limit", () => {
  const view = {
    text: "[Viewing file start (out of 1 lines)]\n1: y",
    startLine: null,
    endLine: null,
  };

  it("closes the least recently used open file to make room", () => {
    const rows = [row(1, true, 30), row(2, true, 10), row(3, true, 20), row(4, false, 0)];
    const opened = openFile(rows, "file-4", view, 3, 99);
    expect(opened.closed).toEqual(["f/2.md"]);
    expect(opened.rows.map((r) => [r.file_id, r.is_open, r.last_accessed_ms])).toEqual([
      ["file-2", false, 10],
      ["file-4", true, 99],
    ]);
  });

  it("re-opening an open file closes nothing", () => {
    const rows = [row(1, true, 30), row(2, true, 10)];
    expect(openFile(rows, "file-2", view, 2, 99).closed).toEqual([]);
  });

  it("attaching opens new files first, closing older ones and new ones beyond the limit", () => {
    const current = [row(1, true, 30), row(2, true, 10)];
    const added = [row(3, true, 50), row(4, true, 50), row(5, true, 50)];
    const attached = attachFiles(current, added, 3);
    expect(attached.closed).toEqual(["f/1.md", "f/2.md"]);
    expect(attachFiles(current, added, 2).closed).toEqual(["f/1.md", "f/2.md", "f/5.md"]);
  });
});
