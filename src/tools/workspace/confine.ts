import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path the model asked for: its real location inside the workspace, or why it may not be used. */
export type ConfinedPath = { ok: true; path: string } | { ok: false; error: string };

/** Linux gives up with ELOOP after 40 links; a longer chain is a loop or an attack. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves a path the model gave to its real location inside the workspace `root`.
 *
 * Relative paths are taken from the root; absolute ones must already lie inside it. Every
 * symbolic link along the way is followed, including the last component and links inside
 * directories that do not exist yet, and the result must stay under the root's real path.
 * The returned path contains no symbolic links, so a tool that uses it acts where we checked.
 * A path cannot show a hard link to a file outside; the file tools check that on the open
 * file (`file-access.ts`).
 *
 * @example
 * const where = await resolveInWorkspace("/srv/ws", "notes/todo.md");
 * if (!where.ok) return failure(where.error);
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<ConfinedPath> {
  if (requested.includes("\0")) {
    return { ok: false, error: "the path contains a NUL character; give a plain file path" };
  }
  const lexicalRoot = resolve(root);
  let realRoot: string;
  try {
    realRoot = await realpath(lexicalRoot);
  } catch {
    return { ok: false, error: "the workspace root does not exist; ask an operator to create it" };
  }
  const wanted = requested === "" ? "." : requested;
  let inside: string | undefined;
  if (isAbsolute(wanted)) {
    // Accept the root as configured and as it really is (e.g. /tmp vs /private/tmp on macOS).
    const absolute = resolve(wanted);
    inside = [lexicalRoot, realRoot].map((base) => relative(base, absolute)).find(isWithin);
    if (inside === undefined) {
      return refuse(requested, "is outside the workspace; use a path relative to its root");
    }
  } else {
    inside = relative(lexicalRoot, resolve(lexicalRoot, wanted));
    if (!isWithin(inside)) {
      return refuse(requested, "climbs out of the workspace with '..'; use a path inside it");
    }
  }
  const followed = await followLinks(realRoot, inside);
  if (followed === "loop") return refuse(requested, "has too many levels of symbolic links");
  if (typeof followed !== "string") {
    return refuse(requested, `cannot be checked (${followed.code}); try another path`);
  }
  if (!isWithin(relative(realRoot, followed))) {
    return refuse(
      requested,
      "leads outside the workspace through a symbolic link; use a path whose files live inside it",
    );
  }
  return { ok: true, path: followed };
}

/** Whether a path relative to a base stays under that base. */
function isWithin(pathFromBase: string): boolean {
  return (
    pathFromBase === "" ||
    (pathFromBase !== ".." && !pathFromBase.startsWith(`..${sep}`) && !isAbsolute(pathFromBase))
  );
}

function refuse(requested: string, reason: string): ConfinedPath {
  return { ok: false, error: `'${requested}' ${reason}` };
}

/**
 * Walks `path` (relative to the real directory `start`) one component at a time, replacing each
 * symbolic link by its target, as the kernel would. Unlike `realpath` it keeps going past
 * components that do not exist yet, so a dangling link is still resolved to where a write
 * through it would really land.
 */
async function followLinks(
  start: string,
  path: string,
): Promise<string | "loop" | { code: string }> {
  const pending = components(path);
  let current = start;
  let hops = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const target = await linkTarget(next);
    if (typeof target === "object") return target;
    if (target === undefined) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) return "loop";
    pending.unshift(...components(target));
    if (isAbsolute(target)) current = "/";
  }
  return current;
}

/** The target of a symbolic link; `undefined` for anything else, including a missing entry. */
async function linkTarget(path: string): Promise<string | undefined | { code: string }> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await readlink(path) : undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : { code };
  }
}

const components = (path: string): string[] => path.split(sep).filter((part) => part !== "");
