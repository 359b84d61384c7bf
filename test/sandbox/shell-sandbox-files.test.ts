import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/tools/sandbox/sandbox.js";
import { bwrapSandbox, runShell, serverLayout, TENANT_SECRET } from "./sandbox-kit.js";

// Issue #16, point 5: each attack is run twice where that shows something — unconfined
// (`sandbox.mode: none`), where it works, and in the sandbox, where it must fail.

const layout = serverLayout();
const unconfined: Sandbox = { mode: "none" };
let sandbox: Sandbox;
const CANARY = process.env.HOLDFAST_SANDBOX_CANARY ?? "";

beforeAll(async () => {
  sandbox = await bwrapSandbox(layout.dataDir);
});
afterAll(() => layout.remove());

const inA = (command: string, under = sandbox) => runShell(under, layout.workspaceA, command);

describe("the shell sandbox keeps the server's secrets from a command", () => {
  it("shows no server environment through /proc/$PPID/environ, /proc/*/environ or env", async () => {
    // The canary is in this process's initial environment, as a provider key is in the server's.
    expect(readFileSync("/proc/self/environ", "utf8")).toContain(CANARY);
    expect(CANARY).not.toBe("");
    const attack = "cat /proc/$PPID/environ; cat /proc/*/environ; env";
    expect((await inA(attack, unconfined)).output).toContain(CANARY);

    const result = await inA(attack);
    expect(result.output).not.toContain(CANARY);
    expect(result.output).not.toContain("HOLDFAST");
    expect(result.output).toContain("HOME=/workspace");
  });

  it("shows the command none of the server's processes", async () => {
    const result = await inA("ls /proc | grep -E '^[0-9]+$' | wc -l; ps -e -o pid= 2>/dev/null");
    // bwrap's init, the shell, and ls/ps and their pipe partners: a handful, never the server.
    expect(Number(result.output.split("\n")[1])).toBeLessThan(8);
    expect(result.output).not.toContain(String(process.pid));
  });

  it("cannot read the database or list the data directory", async () => {
    const attack = `cat '${layout.database}'; ls '${layout.dataDir}'; find / -path /proc -prune -o -name 'holdfast.db' -print 2>/dev/null`;
    expect((await inA(`cat '${layout.database}'`, unconfined)).output).toContain(TENANT_SECRET);

    const result = await inA(attack);
    expect(result.status).toBe("error");
    expect(result.output).toContain("No such file or directory");
    expect(result.output).not.toContain(TENANT_SECRET);
    expect(result.output).not.toMatch(/^(holdfast\.db|\/.*holdfast\.db)$/m);
  });

  it("cannot read or write another agent's workspace", async () => {
    const theirs = join(layout.workspaceB, "pwned");
    const attack = `cat '${layout.workspaceB}/private.txt'; echo hi > '${theirs}'; ls ..`;
    const result = await inA(attack);
    expect(result.output).toContain("private.txt: No such file or directory");
    expect(result.output).toContain("pwned: Directory nonexistent");
    expect(result.output).not.toContain(TENANT_SECRET);
    // `ls ..` from /workspace lists the sandbox's root: system directories, no workspaces.
    expect(result.output).not.toMatch(/^(agent-b|workspaces)$/m);
    expect(result.output).toMatch(/^workspace$/m);
    expect(existsSync(theirs)).toBe(false);
  });

  it("cannot hard-link a file from outside into the workspace for the file tools to read", async () => {
    // Unconfined, a hard link to the database is a second name for it inside the workspace; the
    // file tools check paths and symbolic links, but a hard link looks like any other file, and
    // every later command (even a sandboxed one) can read it there.
    const linked = await inA(`ln '${layout.database}' stolen.db`, unconfined);
    expect(linked.status).toBe("success");
    expect(readFileSync(join(layout.workspaceA, "stolen.db"), "latin1")).toContain(TENANT_SECRET);
    expect((await inA("grep -c launch-code stolen.db")).output).toContain("1");
    await inA("rm stolen.db", unconfined);

    // In the sandbox the database does not exist, and the system is on other mounts.
    const result = await inA(
      `ln '${layout.database}' db; ln /etc/passwd passwd; ln /usr/bin/env env`,
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("No such file or directory");
    expect(result.output).toContain("Invalid cross-device link");
    for (const name of ["db", "passwd", "env"]) {
      expect(existsSync(join(layout.workspaceA, name))).toBe(false);
    }
  });

  it("writes only the workspace: the system is read-only and /tmp is the sandbox's own", async () => {
    const marker = `holdfast-sandbox-tmp-${process.pid}`;
    const result = await inA(
      `touch /usr/x /etc/x 2>&1; echo made > /tmp/${marker}; echo kept > mine.txt; pwd`,
    );
    expect(result.output).toMatch(/'\/usr\/x': Read-only file system/);
    expect(result.output).toMatch(/'\/etc\/x': Read-only file system/);
    expect(result.output).toContain("/workspace\n");
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect(readFileSync(join(layout.workspaceA, "mine.txt"), "utf8")).toBe("kept\n");
  });

  it("cannot mount, make device nodes or gain privileges, even when the server runs as root", async () => {
    const result = await inA(
      "grep CapEff /proc/self/status; mount -t tmpfs none /mnt 2>&1; mknod disk b 8 0 2>&1",
    );
    expect(result.output).toContain("CapEff:\t0000000000000000");
    expect(result.output).not.toMatch(/^disk$/m);
    expect(existsSync(join(layout.workspaceA, "disk"))).toBe(false);
  });
});
