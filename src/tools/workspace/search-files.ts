import { lstat, readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { searchFilesTool } from "../builtin/workspace-tools.js";
import { failure, implementTool, success } from "../tool.js";
import {
  byCodeUnits,
  decode,
  HardLinkedFileError,
  hardLinkMessage,
  inWorkspace,
  looksBinary,
  readStart,
} from "./file-access.js";
import {
  MAX_PATTERN_CHARS,
  type MatcherFailure,
  MatcherStoppedError,
  type PatternMatcher,
  startPatternMatcher,
} from "./pattern-matcher.js";

const SEARCH_CAP_MATCHES = 200;
const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
const SEARCH_LINE_CHARS = 300;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

/**
 * `search_files`: the pattern runs in a worker thread under RE2, so no pattern can stall the
 * server, and the tool's timeout (or a cancelled run) terminates the thread mid-match.
 */
export const searchFilesImplementation = implementTool(
  searchFilesTool,
  { idempotent: true },
  async ({ pattern, path: requested = "." }, context) => {
    if (pattern.length > MAX_PATTERN_CHARS) {
      return failure(`the pattern is over ${MAX_PATTERN_CHARS} characters; use a shorter one`);
    }
    return inWorkspace(context, requested, "read", async (path) => {
      const top = await stat(path);
      if (top.isFile() && top.nlink > 1) return failure(hardLinkMessage(requested));
      const matcher = await startPatternMatcher(pattern, SEARCH_LINE_CHARS, context.signal);
      if ("reason" in matcher) return stoppedOrInvalid(matcher);
      try {
        return await search(matcher, { path, requested, pattern, signal: context.signal });
      } catch (error) {
        if (error instanceof MatcherStoppedError) return stoppedOrInvalid({ reason: "stopped" });
        throw error;
      } finally {
        await matcher.close();
      }
    });
  },
);

function stoppedOrInvalid(failed: MatcherFailure) {
  return failed.reason === "invalid"
    ? failure(
        `the pattern is not a valid regular expression (RE2 syntax: no backreferences or lookaround): ${failed.message}`,
      )
    : failure(
        "the search was stopped (it timed out or the run was cancelled); narrow the pattern or path",
      );
}

interface Search {
  /** The real path to search, and the one the model gave, shown in results. */
  path: string;
  requested: string;
  pattern: string;
  signal: AbortSignal;
}

async function search(matcher: PatternMatcher, { path, requested, pattern, signal }: Search) {
  const matches: string[] = [];
  const linked: string[] = [];
  for await (const file of filesUnder(path)) {
    if (signal.aborted) return stoppedOrInvalid({ reason: "stopped" });
    const bytes = await readSearchable(file);
    const shown = join(requested, relative(path, file));
    if (bytes === "hard-linked") linked.push(shown);
    if (typeof bytes === "string" || bytes === null) continue;
    const lines = await matcher.matchLines(decode(bytes), SEARCH_CAP_MATCHES + 1 - matches.length);
    for (const [index, line] of lines) {
      if (matches.length === SEARCH_CAP_MATCHES) {
        matches.push(`[more than ${SEARCH_CAP_MATCHES} matches; narrow the pattern or path]`);
        return success(matches.join("\n"));
      }
      matches.push(`${shown}:${index + 1}: ${line}`);
    }
  }
  const skipped =
    linked.length === 0
      ? ""
      : `\n[skipped, since they have other hard links: ${linked.join(", ")}]`;
  if (matches.length === 0)
    return success(`no line matches /${pattern}/ in '${requested}'${skipped}`);
  return success(matches.join("\n") + skipped);
}

/** A file's bytes if it is worth searching: small, text, single-named, and still there. */
async function readSearchable(file: string): Promise<Buffer | "hard-linked" | null> {
  try {
    const { size, nlink } = await stat(file);
    if (nlink > 1) return "hard-linked";
    if (size > SEARCH_MAX_FILE_BYTES) return null;
    const bytes = await readStart(file, size);
    return looksBinary(bytes) ? null : bytes;
  } catch (error) {
    if (error instanceof HardLinkedFileError) return "hard-linked";
    return null; // A file removed or locked mid-search is skipped, not fatal.
  }
}

/**
 * The regular files at or under `path`, in name order. Symbolic links are not followed: one
 * could lead out of the workspace, and a loop of them would never end.
 */
async function* filesUnder(path: string): AsyncGenerator<string> {
  const stats = await lstat(path);
  if (stats.isFile()) yield path;
  if (!stats.isDirectory()) return;
  let entries: string[];
  try {
    entries = (await readdir(path, { withFileTypes: true }))
      .filter((entry) => entry.isFile() || entry.isDirectory())
      .filter((entry) => !(entry.isDirectory() && SKIPPED_DIRECTORIES.has(entry.name)))
      .map((entry) => entry.name)
      .sort(byCodeUnits);
  } catch {
    return; // An unreadable subdirectory should not end the whole search.
  }
  for (const name of entries) yield* filesUnder(join(path, name));
}
