import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { failure, type ToolContext, type ToolResult } from "../tool.js";
import { resolveInWorkspace } from "./confine.js";

/** Like git and grep, a file with a NUL byte near its start is taken to be binary. */
const BINARY_SNIFF_BYTES = 8000;

/**
 * A regular file with more than one name. Path checks cannot tell where its other names live:
 * a hard link made inside the workspace to a file outside it looks like any other file, so
 * the file tools refuse such files rather than read or overwrite what lies outside.
 */
export class HardLinkedFileError extends Error {
  override readonly name = "HardLinkedFileError";
}

/**
 * Runs a tool body on the real path of `requested`, after the checks every file tool shares.
 * The file system's expected refusals become results the model can act on; others are bugs.
 */
export async function inWorkspace(
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
  if (error instanceof HardLinkedFileError) return hardLinkMessage(requested);
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

export const hardLinkMessage = (requested: string) =>
  `'${requested}' has other hard links; it may be a link to a file outside the workspace, so the file tools leave it alone`;

export const directoryMessage = (requested: string) =>
  `'${requested}' is a directory; use list_directory to see what it holds`;

/**
 * Throws unless the open file is a regular file with a single name. Checked on the handle, after
 * opening, so a link made between a path check and the open cannot slip through.
 */
async function requireSingleName(handle: FileHandle): Promise<void> {
  const stats = await handle.stat();
  if (stats.isFile() && stats.nlink > 1) throw new HardLinkedFileError();
}

/** Reads at most `limitBytes` from the start of a regular file, never through a link. */
export async function readStart(path: string, limitBytes: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    await requireSingleName(handle);
    const buffer = Buffer.alloc(limitBytes);
    const { bytesRead } = await handle.read(buffer, 0, limitBytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Replaces a file's content, never through a link: the file is truncated only after its handle
 * shows one name, so a hard-linked file outside the workspace is left as it was.
 */
export async function writeWhole(path: string, content: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW;
  const handle = await open(path, flags, 0o644);
  try {
    await requireSingleName(handle);
    await handle.truncate(0);
    await handle.writeFile(content, "utf8");
  } finally {
    await handle.close();
  }
}

/** Decodes UTF-8, dropping a character cut in half at the end rather than showing garbage. */
export const decode = (bytes: Buffer): string => new TextDecoder().decode(bytes, { stream: true });
export const looksBinary = (bytes: Buffer): boolean =>
  bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);

export type FileStart = { size: number; bytes: Buffer };

/** Reads a regular file's start or explains why not; a special file (a FIFO) could block us. */
export async function readRegular(
  path: string,
  requested: string,
  limitBytes: number,
): Promise<FileStart | ToolResult> {
  const stats = await stat(path);
  if (stats.isDirectory()) return failure(directoryMessage(requested));
  if (!stats.isFile()) return failure(`'${requested}' is not a regular file`);
  if (stats.nlink > 1) return failure(hardLinkMessage(requested));
  return { size: stats.size, bytes: await readStart(path, Math.min(limitBytes, stats.size)) };
}

export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
