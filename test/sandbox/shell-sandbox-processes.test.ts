import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/tools/sandbox/sandbox.js";
import {
  bwrapSandbox,
  processesWith,
  runShell,
  serverLayout,
  survivorsAfter,
} from "./sandbox-kit.js";

// Issue #16, point 5: processes that outlive their call, and the network.

const layout = serverLayout();
let sandbox: Sandbox;

/** A loopback server on the host that records what reaches it. */
let listener: Server;
let port = 0;
const received: string[] = [];

beforeAll(async () => {
  sandbox = await bwrapSandbox(layout.dataDir);
  listener = createServer((socket) => socket.on("data", (data) => received.push(String(data))));
  listener.listen(0, "127.0.0.1");
  await once(listener, "listening");
  const address = listener.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(() => {
  listener.close();
  layout.remove();
});

/** A distinct `sleep` duration, so that each test finds only its own processes in `ps`. */
let nextSleep = 7_001;
const uniqueSleep = () => `sleep ${nextSleep++}`;

describe("the shell sandbox leaves nothing running after a call", () => {
  it("ends a setsid background process when the command returns", async () => {
    const sleep = uniqueSleep();
    // The short wait lets setsid leave the group before the call kills the group; the
    // redirection keeps the escaped process from holding the call's pipes open until timeout.
    const unconfined = await runShell(
      { mode: "none" },
      layout.workspaceA,
      `setsid ${sleep} >/dev/null 2>&1 & sleep 0.3`,
    );
    expect(unconfined.status).toBe("success");
    // Unconfined, the process left the group and outlives the call: the escape is real.
    const escaped = processesWith(sleep);
    expect(escaped.length).toBeGreaterThan(0);
    for (const pid of escaped) process.kill(pid, "SIGKILL");

    const sleepAgain = uniqueSleep();
    const result = await runShell(
      sandbox,
      layout.workspaceA,
      `setsid ${sleepAgain} & echo started`,
    );
    expect(result.output).toContain("started");
    expect(await survivorsAfter(sleepAgain)).toEqual([]);
  });

  it("kills every process, setsid and nohup ones too, at the timeout", async () => {
    const [a, b, c, d] = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const result = await runShell(
      sandbox,
      layout.workspaceA,
      `setsid ${a} & nohup ${b} >/dev/null 2>&1 & (setsid sh -c '${c}' &) ; echo waiting; ${d}`,
      { timeoutMs: 500 },
    );
    expect(result.status).toBe("error");
    expect(result.output).toContain("timed out after 500 ms");
    expect(result.output).toContain("waiting");
    // The kernel ends a PID namespace's processes soon after its init, not at once: wait a little.
    for (const sleep of [a, b, c, d]) expect(await survivorsAfter(sleep)).toEqual([]);
  });
});

describe("the shell sandbox's network", () => {
  const connect = (text: string) =>
    `bash -c 'echo ${text} > /dev/tcp/127.0.0.1/${port}' && echo connected`;

  it("refuses a connection to a server on the host's loopback when network is off", async () => {
    const result = await runShell(sandbox, layout.workspaceA, connect("off-by-default"));
    expect(result.status).toBe("error");
    expect(result.output).toContain("Connection refused");
    expect(result.output).not.toContain("connected");
    // Only the sandbox's own loopback exists: no other interface to leave by.
    const links = await runShell(
      sandbox,
      layout.workspaceA,
      "ls /sys/class/net 2>/dev/null || cat /proc/net/dev",
    );
    expect(links.output).not.toMatch(/eth|ens|enp|wl/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.join("")).not.toContain("off-by-default");
  });

  it("reaches the host when the agent type allows network", async () => {
    const result = await runShell(sandbox, layout.workspaceA, connect("allowed"), {
      network: true,
    });
    expect(result.output).toContain("connected");
    for (let tries = 0; tries < 40 && !received.join("").includes("allowed"); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(received.join("")).toContain("allowed");
  });
});
