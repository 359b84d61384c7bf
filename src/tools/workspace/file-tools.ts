import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import {
  editFileTool,
  listDirectoryTool,
  readFileTool,
  searchFilesTool,
  writeFileTool,
} from "../builtin/workspace-tools.js";
import {
  failure,
  implementTool,
  success,
  type ToolContext,
  type ToolImplementation,
  type ToolResult,
} from "../tool.js";
import { resolveInWorkspace } from "./confine.js";

const READ_CAP_BYTES = 64 * 1024;
const LIST_CAP_ENTRIES = 1000;
const SEARCH_CAP_MATCHES = 200;
const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
const SEARCH_LINE_CHARS = 300;
/** Like git and grep, a file with a NUL byte near its start is taken to be binary. */
const BINARY_SNIFF_BYTES = 8000;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

/**
 * Runs a tool body on the real path of `requested`, after the checks every file tool shares.
 * The file system's expected refusals become results the model can act on; others are bugs.
 */
async function inWorkspace(
  context: ToolContext,
  requested: string,
  access: "read" | "write",
  body: (path: string) => Promise<ToolResult>,
): Promise<ToolResult> {
  const { root, readOnly } = context.workspace;
  if (root === null) return failure("this agent has no workspace, so it has no files");
  if (access === "write" && readOnly) {
    return failure(
      "the workspace is read-only for this agent; it can read files but not change them",
    );
  }
  const where = await resolveInWorkspace(root, requested);
  if (!where.ok) return failure(where.error);
  try {
    return await body(where.path);
  } catch (error) {
    const described = describeFsError(error, requested);
    if (described === undefined) throw error;
    return failure(described);
  }
}

function describeFsError(error: unknown, requested: string): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "ENOENT":
      return `there is no file or directory '${requested}' in the workspace`;
    case "EISDIR":
      return directoryMessage(requested);
    case "ENOTDIR":
    case "EEXIST":
      return `a part of '${requested}' is a file where a directory is needed`;
    case "EACCES":
    case "EPERM":
      return `permission denied for '${requested}'`;
    // O_NOFOLLOW met a link that appeared after the path was checked.
    case "ELOOP":
      return `'${requested}' became a symbolic link while being used; try again`;
    default:
      return undefined;
  }
}

/** Reads at most `limitBytes` from the start of a regular file, never through a final symlink. */
async function readStart(path: string, limitBytes: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(limitBytes);
    const { bytesRead } = await handle.read(buffer, 0, limitBytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function writeWhole(path: string, content: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const handle = await open(path, flags, 0o644);
  try {
    await handle.writeFile(content, "utf8");
  } finally {
    await handle.close();
  }
}

/** Decodes UTF-8, dropping a character cut in half at the end rather than showing garbage. */
const decode = (bytes: Buffer): string => new TextDecoder().decode(bytes, { stream: true });
const looksBinary = (bytes: Buffer): boolean => bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);

const directoryMessage = (requested: string) =>
  `'${requested}' is a directory; use list_directory to see what it holds`;

type FileStart = { size: number; bytes: Buffer };

/** Reads a regular file's start or explains why not; a special file (a FIFO) could block us. */
async function readRegular(
  path: string,
  requested: string,
  limitBytes: number,
): Promise<FileStart | ToolResult> {
  const stats = await stat(path);
  if (stats.isDirectory()) return failure(directoryMessage(requested));
  if (!stats.isFile()) return failure(`'${requested}' is not a regular file`);
  return { size: stats.size, bytes: await readStart(path, Math.min(limitBytes, stats.size)) };
}

export const readFileImplementation = implementTool(
  readFileTool,
  { idempotent: true },
  ({ path: requested }, context) =>
    inWorkspace(context, requested, "read", async (path) => {
      const file = await readRegular(path, requested, READ_CAP_BYTES);
      if ("status" in file) return file;
      if (looksBinary(file.bytes)) {
        return failure(`'${requested}' looks like a binary file; read_file only shows text`);
      }
      if (file.size === 0) return success(`'${requested}' is empty`);
      const text = decode(file.bytes);
      if (file.size <= file.bytes.length) return success(text);
      return success(
        `${text}\n\n[truncated: showed the first ${file.bytes.length} of ${file.size} bytes]`,
      );
    }),
);

export const listDirectoryImplementation = implementTool(
  listDirectoryTool,
  { idempotent: true },
  ({ path: requested }, context) =>
    inWorkspace(context, requested, "read", async (path) => {
      if (!(await stat(path)).isDirectory()) {
        return failure(`'${requested}' is a file, not a directory; use read_file to read it`);
      }
      const entries = (await readdir(path, { withFileTypes: true }))
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort(byCodeUnits);
      if (entries.length === 0) return success(`'${requested}' is empty`);
      const shown = entries.slice(0, LIST_CAP_ENTRIES).join("\n");
      const more = entries.length - LIST_CAP_ENTRIES;
      return success(more > 0 ? `${shown}\n[${more} more entries not shown]` : shown);
    }),
);

export const searchFilesImplementation = implementTool(
  searchFilesTool,
  { idempotent: true },
  async ({ pattern, path: requested = "." }, context) => {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      return failure(`the pattern is not a valid regular expression: ${(error as Error).message}`);
    }
    return inWorkspace(context, requested, "read", async (path) => {
      const matches: string[] = [];
      for await (const file of filesUnder(path)) {
        if (context.signal.aborted) return failure("the search was cancelled");
        const bytes = await readSearchable(file);
        if (bytes === null) continue;
        const shown = join(requested, relative(path, file));
        for (const [index, line] of decode(bytes).split(/\r?\n/).entries()) {
          if (!regex.test(line)) continue;
          if (matches.length === SEARCH_CAP_MATCHES) {
            matches.push(`[more than ${SEARCH_CAP_MATCHES} matches; narrow the pattern or path]`);
            return success(matches.join("\n"));
          }
          matches.push(`${shown}:${index + 1}: ${line.slice(0, SEARCH_LINE_CHARS)}`);
        }
      }
      if (matches.length === 0) return success(`no line matches /${pattern}/ in '${requested}'`);
      return success(matches.join("\n"));
    });
  },
);

/** A file's bytes if it is worth searching: small, text, and still there. */
async function readSearchable(file: string): Promise<Buffer | null> {
  try {
    const { size } = await stat(file);
    if (size > SEARCH_MAX_FILE_BYTES) return null;
    const bytes = await readStart(file, size);
    return looksBinary(bytes) ? null : bytes;
  } catch {
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

export const writeFileImplementation = implementTool(
  writeFileTool,
  { idempotent: true },
  ({ path: requested, content }, context) =>
    inWorkspace(context, requested, "write", async (path) => {
      await mkdir(dirname(path), { recursive: true });
      await writeWhole(path, content);
      return success(`wrote ${Buffer.byteLength(content)} bytes to '${requested}'`);
    }),
);

export const editFileImplementation = implementTool(
  editFileTool,
  { idempotent: false },
  async ({ path: requested, old_str: old, new_str: replacement }, context) => {
    if (old === "") return failure("old_str is empty; quote the exact text to replace");
    return inWorkspace(context, requested, "write", async (path) => {
      const file = await readRegular(path, requested, Number.POSITIVE_INFINITY);
      if ("status" in file) return file;
      const text = file.bytes.toString("utf8");
      const first = text.indexOf(old);
      if (first === -1) return failure(`old_str does not occur in '${requested}'`);
      // Overlapping occurrences count too: either one could be the text the model meant.
      if (text.indexOf(old, first + 1) !== -1) {
        return failure(
          `old_str occurs more than once in '${requested}'; include more of the surrounding text`,
        );
      }
      await writeWhole(path, text.slice(0, first) + replacement + text.slice(first + old.length));
      const line = text.slice(0, first).split("\n").length;
      return success(`replaced the text at line ${line} of '${requested}'`);
    });
  },
);

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The file tools, confined to the agent's workspace root. */
export const FILE_IMPLEMENTATIONS: ToolImplementation[] = [
  readFileImplementation,
  listDirectoryImplementation,
  searchFilesImplementation,
  writeFileImplementation,
  editFileImplementation,
];
