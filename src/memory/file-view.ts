/**
 * How an agent sees a file's text, as Letta's `LineChunker` shows it: the non-empty lines,
 * numbered from 1, under a header saying which part is in view. Open files, `open_files` and
 * `grep_files` all number lines this way, so a line number from one is the same in another.
 */

/** The lines an agent sees: non-empty, trailing spaces removed (indentation kept). */
export function fileLines(content: string): string[] {
  return content
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
}

/** A range to view: `offset` lines skipped (0-based), then `length` lines (all by default). */
export interface LineRange {
  offset?: number | undefined;
  length?: number | undefined;
}

export type FileView =
  | { ok: true; text: string; startLine: number | null; endLine: number | null }
  | { ok: false; error: string };

/** The numbered view of `content` (its `range` of lines), or why the range does not fit. */
export function viewFile(fileName: string, content: string, range: LineRange = {}): FileView {
  const lines = fileLines(content);
  const { offset, length } = range;
  if (offset !== undefined && offset < 0) {
    return {
      ok: false,
      error: `Offset for file ${fileName} must be >= 0 (0-indexed), got ${offset}`,
    };
  }
  if (length !== undefined && length < 1) {
    return { ok: false, error: `Length for file ${fileName} must be >= 1, got ${length}` };
  }
  const ranged = offset !== undefined || length !== undefined;
  const start = offset ?? 0;
  if (ranged && start >= lines.length) {
    return {
      ok: false,
      error: `File ${fileName} has only ${lines.length} lines, but requested offset ${start + 1} is out of range`,
    };
  }
  const end = length === undefined ? lines.length : Math.min(start + length, lines.length);
  const numbered = lines.slice(start, end).map((line, i) => `${start + i + 1}: ${line}`);
  const header = !ranged
    ? `[Viewing file start (out of ${lines.length} lines)]`
    : length === undefined
      ? `[Viewing lines ${start + 1} to end (out of ${lines.length} lines)]`
      : `[Viewing lines ${start + 1} to ${end} (out of ${lines.length} lines)]`;
  return {
    ok: true,
    text: [header, ...numbered].join("\n"),
    startLine: ranged ? start + 1 : null,
    endLine: ranged && length !== undefined ? end : null,
  };
}

/** Letta's note at the end of a view cut short to its window. */
export const FILE_TRUNCATED_WARNING =
  "# NOTE: This block is truncated, use functions to view the full content.";

/** The view cut to `limit` characters, ending with Letta's truncation note when cut. */
export function truncateView(view: string, limit: number): string {
  if (view.length <= limit) return view;
  const warning = `...[TRUNCATED]\n${FILE_TRUNCATED_WARNING}`;
  return view.slice(0, Math.max(0, limit - warning.length)) + warning;
}

/** The most of a file's view kept with an agent's row; the context shows less for smaller models. */
export const STORED_VIEW_CHARS = 40_000;

/** Letta's default of files open at once (`DEFAULT_MAX_FILES_OPEN`). */
export const MAX_FILES_OPEN = 5;

/**
 * How many characters of each open file the context shows, by the model's context window, as
 * Letta sizes it (`calculate_file_defaults_based_on_context_window`).
 */
export function fileViewChars(contextWindow: number): number {
  if (contextWindow <= 8_000) return 5_000;
  if (contextWindow <= 32_000) return 15_000;
  if (contextWindow <= 128_000) return 25_000;
  return 40_000;
}

/** Splits a file's text into passages of whole lines, each at most about `maxChars` long. */
export function chunkText(content: string, maxChars = 1_000): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of fileLines(content)) {
    for (let at = 0; at < Math.max(1, line.length); at += maxChars) {
      const piece = line.slice(at, at + maxChars);
      if (size > 0 && size + piece.length + 1 > maxChars) {
        chunks.push(current.join("\n"));
        current = [];
        size = 0;
      }
      current.push(piece);
      size += piece.length + 1;
    }
  }
  if (current.length > 0) chunks.push(current.join("\n"));
  return chunks;
}
