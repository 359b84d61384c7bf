import { posix } from "node:path";

/**
 * The workspace root an agent gets: its own if that lies inside its type's, else the type's.
 * A relative agent root is taken relative to the type's root. Pure: no file system access.
 */
export function narrowWorkspaceRoot(
  typeRoot: string | null,
  agentRoot: string | undefined | null,
): string | null {
  if (agentRoot === undefined || agentRoot === null) return typeRoot;
  if (typeRoot === null) return posix.normalize(agentRoot);
  if (!isWithin(typeRoot, agentRoot)) return typeRoot;
  return posix.isAbsolute(agentRoot) ? posix.normalize(agentRoot) : posix.join(typeRoot, agentRoot);
}

/** Whether `inner` (a relative one taken from `outer`) stays inside `outer`. */
export function isWithin(outer: string, inner: string): boolean {
  // A relative root cannot be compared with an absolute path without knowing the cwd.
  if (posix.isAbsolute(inner) && !posix.isAbsolute(outer)) return false;
  const base = posix.resolve("/", outer);
  const rel = posix.relative(base, posix.resolve(base, inner));
  return rel !== ".." && !rel.startsWith("../") && !posix.isAbsolute(rel);
}
