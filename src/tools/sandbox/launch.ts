import { bwrapArguments, SANDBOX_WORKSPACE } from "./bwrap-args.js";
import type { Sandbox } from "./sandbox.js";

/** A fixed PATH, so the server's own PATH (which may point into a user's home) is not inherited. */
export const SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The environment of every command. Nothing comes from `process.env`: the server's environment
 * holds provider keys, database URLs and every project's bearer token.
 */
export function shellEnvironment(home: string): Record<string, string> {
  return { PATH: SAFE_PATH, HOME: home, LANG: "C.UTF-8", LC_ALL: "C.UTF-8", TERM: "dumb" };
}

/** The process to spawn for one shell command: program, arguments, directory, environment. */
export interface Launch {
  readonly file: string;
  readonly args: string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
}

/** Where a command runs: the agent's workspace on the server, and whether it may use the network. */
export interface CommandPlace {
  readonly root: string;
  readonly network: boolean;
}

/** How to run `command` with `/bin/sh -c` under `sandbox` in the agent's workspace. */
export function launchCommand(sandbox: Sandbox, command: string, place: CommandPlace): Launch {
  if (sandbox.mode === "none") {
    return {
      file: "/bin/sh",
      args: ["-c", command],
      cwd: place.root,
      env: shellEnvironment(place.root),
    };
  }
  const env = shellEnvironment(SANDBOX_WORKSPACE);
  const options = {
    workspaceRoot: place.root,
    network: place.network,
    hiddenPaths: sandbox.hiddenPaths,
    env,
  };
  // bwrap gets the scrubbed environment too: its init is PID 1 inside, and a command can read
  // /proc/1/environ.
  const args = bwrapArguments(options, ["/bin/sh", "-c", command]);
  return { file: sandbox.bwrapPath, args, cwd: "/", env };
}
