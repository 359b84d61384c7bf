/**
 * How the shell runs commands on this server.
 * - `bwrap`: inside a bubblewrap sandbox (see `bwrap-args.ts` for what it shares and hides);
 * - `none`: unconfined, as the server's own user, with only a scrubbed environment. An operator
 *   must ask for this in the config (`sandbox.mode: none`); it is never a silent fallback.
 */
export type Sandbox =
  | {
      readonly mode: "bwrap";
      /** The absolute path of the `bwrap` binary the start-up probe ran. */
      readonly bwrapPath: string;
      /**
       * Server paths (data directory, config directory) to cover with an empty tmpfs should they
       * lie under a system directory the sandbox shows read-only, e.g. a data dir in /usr/local.
       */
      readonly hiddenPaths: readonly string[];
    }
  | { readonly mode: "none" };

/** The sandbox mode an operator may choose in the config; `bwrap` unless said otherwise. */
export type SandboxMode = Sandbox["mode"];

/**
 * What start-up found: a sandbox to run the shell in, or why there is none (then the shell is
 * not offered, and the reason is what capabilities report for it).
 */
export type SandboxDetection =
  | { readonly ok: true; readonly sandbox: Sandbox }
  | { readonly ok: false; readonly reason: string };

/** The one line the start-up banner shows about the sandbox. */
export function describeSandbox(detection: SandboxDetection): string {
  if (!detection.ok) return `none: shell not offered (${detection.reason})`;
  const { sandbox } = detection;
  return sandbox.mode === "bwrap"
    ? `bubblewrap (${sandbox.bwrapPath}): shell commands run in their own namespaces`
    : "none (sandbox.mode: none): shell commands run unconfined as the server's user";
}
