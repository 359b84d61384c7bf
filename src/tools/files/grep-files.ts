import type { FolderStore } from "../../storage/folder-store.js";
import { failure, success, type ToolResult } from "../tool.js";
import { MAX_PATTERN_CHARS, startPatternMatcher } from "../workspace/pattern-matcher.js";

/** Letta's page of matches, and the most it collects before it stops looking. */
const PAGE_SIZE = 20;
const MAX_COLLECTED = 1_000;
const LINE_CHARS = 2_000;

export interface GrepArgs {
  pattern: string;
  include?: string | undefined;
  context_lines?: number | undefined;
  offset?: number | undefined;
}

/** `*.md` → a pattern matching names that end so; anything else is taken as a pattern. */
function includePattern(include: string): string {
  const glob = include.includes("*") && !/[\^$()[\]{}\\+]/.test(include);
  if (!glob) return include;
  const pattern = include.replaceAll(".", "\\.").replaceAll("*", ".*").replaceAll("?", ".");
  return pattern.endsWith("$") ? pattern : `${pattern}$`;
}

/**
 * Letta's `grep_files`: the lines of the agent's attached files matching a pattern (any case),
 * with context, 20 matches a page. Patterns run under RE2 in a worker thread the tool's
 * timeout ends, as `search_files` does, so no pattern can stall the server.
 */
export async function grepFiles(
  folders: FolderStore,
  agentId: string,
  args: GrepArgs,
  signal: AbortSignal,
  nowMs: number,
): Promise<ToolResult> {
  const pattern = args.pattern.trim();
  if (pattern === "") return failure("Empty search pattern provided");
  if (pattern.length > MAX_PATTERN_CHARS) {
    return failure(`Pattern too complex: ${pattern.length} chars > ${MAX_PATTERN_CHARS} limit`);
  }
  let rows = await folders.agentFiles(agentId);
  if (rows.length === 0) return success("No files are currently attached to search");
  const include = args.include?.trim();
  if (include) {
    const names = await startPatternMatcher(`(?i)${includePattern(include)}`, LINE_CHARS, signal);
    if ("reason" in names) return failure(`Invalid include pattern: ${matcherError(names)}`);
    try {
      const hits = await names.matchLines(rows.map((row) => row.file_name).join("\n"), rows.length);
      const keep = new Set(hits.map(([index]) => index));
      const before = rows.length;
      rows = rows.filter((_, index) => keep.has(index));
      if (rows.length === 0) {
        return success(
          `No files match the filename pattern '${include}' (filtered ${before} files)`,
        );
      }
    } finally {
      await names.close();
    }
  }
  const matcher = await startPatternMatcher(`(?i)${pattern}`, LINE_CHARS, signal);
  if ("reason" in matcher) return failure(`Invalid regex pattern: ${matcherError(matcher)}`);
  const context = Math.max(0, args.context_lines ?? 1);
  const matches: { file: string; line: number; lines: string[] }[] = [];
  const matched = new Set<string>();
  try {
    for (const row of rows) {
      if (matches.length >= MAX_COLLECTED) break;
      const content = (await folders.getFileContent(row.file_id)) ?? "";
      const found = await matcher.grepFile(content, MAX_COLLECTED - matches.length, context);
      for (const { index, from, lines } of found) {
        matched.add(row.file_id);
        const shown = lines.map((text, i) => {
          const at = from + i;
          return `${at === index ? ">" : " "} ${at + 1}: ${text}`;
        });
        matches.push({ file: row.file_name, line: index + 1, lines: shown });
      }
    }
  } finally {
    await matcher.close();
  }
  const touched = rows.filter((row) => matched.has(row.file_id));
  if (touched.length > 0) {
    await folders.putAgentFiles(
      agentId,
      touched.map((row) => ({ ...row, last_accessed_ms: nowMs })),
    );
  }
  return success(grepReport(pattern, include, matches, Math.max(0, args.offset ?? 0)));
}

function matcherError(failed: { reason: "invalid"; message: string } | { reason: "stopped" }) {
  return failed.reason === "invalid" ? failed.message : "the search was stopped";
}

function grepReport(
  pattern: string,
  include: string | undefined,
  matches: { file: string; line: number; lines: string[] }[],
  offset: number,
): string {
  if (matches.length === 0) {
    return `No matches found for pattern: '${pattern}'${include ? ` in files matching '${include}'` : ""}`;
  }
  const perFile = new Map<string, number>();
  for (const match of matches) perFile.set(match.file, (perFile.get(match.file) ?? 0) + 1);
  const end = offset + PAGE_SIZE;
  const page = matches.slice(offset, end);
  const out = [
    `Found ${matches.length} total matches across ${perFile.size} files (showing matches ${Math.min(offset + 1, matches.length)}-${Math.min(end, matches.length)} of ${matches.length})`,
    "",
    "Files with matches:",
    ...[...perFile].map(([file, count]) => `  - ${file}: ${count} matches`),
    "",
    ...page.map((match) => `\n=== ${match.file}:${match.line} ===\n${match.lines.join("\n")}`),
    "",
  ];
  const capped = matches.length >= MAX_COLLECTED;
  if (end < matches.length) {
    out.push(`To see more matches, call: grep_files(pattern="${pattern}", offset=${end})`);
    if (capped)
      out.push(
        `Note: Only the first ${MAX_COLLECTED} matches were collected. There may be more matches beyond this limit.`,
      );
  } else {
    out.push(
      capped
        ? "Showing last page of collected matches. There may be more matches beyond the collection limit."
        : "No more matches to show.",
    );
  }
  return out.join("\n");
}
