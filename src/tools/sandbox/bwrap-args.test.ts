import { describe, expect, it } from "vitest";
import { bwrapArguments, SANDBOX_WORKSPACE } from "./bwrap-args.js";

const options = {
  workspaceRoot: "/srv/holdfast/data/workspaces/agent-1",
  network: false,
  hiddenPaths: ["/srv/holdfast/data"],
  env: { PATH: "/usr/bin:/bin", HOME: SANDBOX_WORKSPACE },
};
const argv = ["/bin/sh", "-c", "ls"];

/** The value after each occurrence of `flag`, as [source, target] pairs for binds. */
function pairsAfter(args: string[], flag: string): string[][] {
  return args.flatMap((arg, i) => (arg === flag ? [args.slice(i + 1, i + 3)] : []));
}

describe("bwrapArguments", () => {
  it("puts the command in new namespaces that die with the server and cannot signal it", () => {
    const args = bwrapArguments(options, argv);
    for (const flag of ["--unshare-all", "--die-with-parent", "--new-session"]) {
      expect(args).toContain(flag);
    }
    expect(args).not.toContain("--share-net");
    expect(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2)).toEqual([
      "--cap-drop",
      "ALL",
    ]);
  });

  it("binds the workspace, and only it, writable at /workspace and starts there", () => {
    const args = bwrapArguments(options, argv);
    expect(pairsAfter(args, "--bind")).toEqual([[options.workspaceRoot, SANDBOX_WORKSPACE]]);
    expect(args.slice(args.indexOf("--chdir"), args.indexOf("--chdir") + 2)).toEqual([
      "--chdir",
      SANDBOX_WORKSPACE,
    ]);
    const readOnly = pairsAfter(args, "--ro-bind-try").map(([source]) => source);
    expect(readOnly).toEqual(["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"]);
    expect(readOnly.some((path) => options.workspaceRoot.startsWith(path ?? ""))).toBe(false);
  });

  it("gives fresh /proc, /dev and /tmp, and never binds / or the data directory", () => {
    const args = bwrapArguments(options, argv);
    expect(pairsAfter(args, "--proc")[0]?.[0]).toBe("/proc");
    expect(pairsAfter(args, "--dev")[0]?.[0]).toBe("/dev");
    expect(args.join(" ")).toContain("--tmpfs /tmp");
    const sources = [...pairsAfter(args, "--ro-bind-try"), ...pairsAfter(args, "--bind")].map(
      ([source]) => source,
    );
    expect(sources).not.toContain("/");
    expect(sources).not.toContain("/srv/holdfast/data");
  });

  it("clears the environment and sets only the given variables, then runs the command", () => {
    const args = bwrapArguments(options, argv);
    const clear = args.indexOf("--clearenv");
    expect(clear).toBeGreaterThan(-1);
    expect(args.slice(clear + 1, clear + 7)).toEqual([
      "--setenv",
      "PATH",
      "/usr/bin:/bin",
      "--setenv",
      "HOME",
      SANDBOX_WORKSPACE,
    ]);
    expect(args.slice(-4)).toEqual(["--", ...argv]);
  });

  it("shares the network only when allowed, with the resolver's directory", () => {
    const args = bwrapArguments({ ...options, network: true }, argv);
    expect(args.indexOf("--share-net")).toBeGreaterThan(args.indexOf("--unshare-all"));
    expect(pairsAfter(args, "--ro-bind-try")).toContainEqual([
      "/run/systemd/resolve",
      "/run/systemd/resolve",
    ]);
  });

  it("covers a server directory that lies under a shown system directory, and only such", () => {
    const hiddenPaths = ["/usr/local/holdfast/data", "/etc/holdfast", "/srv/data", "/etc"];
    const args = bwrapArguments({ ...options, hiddenPaths }, argv);
    const covered = args.flatMap((arg, i) => (arg === "--tmpfs" ? [args[i + 1]] : []));
    expect(covered).toEqual(["/usr/local/holdfast/data", "/etc/holdfast", "/tmp"]);
    // Covers come after the system binds they cover, or the bind would hide them again.
    expect(args.indexOf("/usr/local/holdfast/data")).toBeGreaterThan(args.lastIndexOf("/etc"));
  });
});
