import { isAbsolute, relative } from "node:path";

/** Where the agent's workspace appears inside the sandbox, whatever its path on the server. */
export const SANDBOX_WORKSPACE = "/workspace";

/**
 * The system directories a command sees, read-only. Only these: the server's data directory,
 * the other agents' workspaces, home directories and /tmp of the host do not exist inside.
 * `-try` because merged-/usr systems have some of them as symlinks and others not at all.
 */
export const SYSTEM_DIRECTORIES = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"];

/** What one sandboxed command needs besides the command line itself. */
export interface BwrapOptions {
  /** The agent's workspace on the server: the one writable place, mounted at /workspace. */
  readonly workspaceRoot: string;
  /** Whether the command shares the server's network; otherwise it has only its own loopback. */
  readonly network: boolean;
  /** Server paths to cover with an empty tmpfs if they lie under a system directory. */
  readonly hiddenPaths: readonly string[];
  /** The environment inside; nothing else is passed through. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The bwrap arguments that run `argv` confined to the agent's workspace. Every namespace is new
 * (PID, mount, IPC, UTS, network, cgroup, user where possible), so a command cannot see or
 * signal the server's processes, read the server's environment through /proc, reach the
 * network, or leave a process behind: when bwrap's init in the PID namespace dies, the kernel
 * kills every process in it. Capabilities are dropped, so root inside (when the server runs as
 * root) cannot mount, make device nodes or undo the read-only binds.
 */
export function bwrapArguments(options: BwrapOptions, argv: readonly string[]): string[] {
  const args = [
    "--unshare-all",
    ...(options.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
  ];
  for (const dir of SYSTEM_DIRECTORIES) args.push("--ro-bind-try", dir, dir);
  // systemd-resolved points /etc/resolv.conf into /run, which is otherwise not shown.
  if (options.network) {
    args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  }
  for (const path of options.hiddenPaths) {
    if (SYSTEM_DIRECTORIES.some((dir) => isUnder(dir, path))) args.push("--tmpfs", path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--bind", options.workspaceRoot, SANDBOX_WORKSPACE, "--chdir", SANDBOX_WORKSPACE);
  args.push("--clearenv");
  for (const [name, value] of Object.entries(options.env)) args.push("--setenv", name, value);
  args.push("--", ...argv);
  return args;
}

/** Whether `path` is strictly inside `dir` (covering a whole system directory would break it). */
function isUnder(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
