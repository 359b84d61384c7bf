import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

type Server = Awaited<ReturnType<typeof startServer>>;

/** How `holdfast serve` guards its data directory and says how durable it is (issue #16). */
describe("holdfast serve on a data directory", () => {
  const cwd = tempDir("holdfast-data-dir-");
  const dataDir = join(cwd, "data");
  const args = ["--port", "0", "--data-dir", dataDir];
  const started: Server[] = [];
  const start = async (extra: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const server = await startServer([...args, ...extra], { cwd, env });
    started.push(server);
    return server;
  };
  afterAll(async () => {
    for (const server of started) await stopServer(server.process);
  });

  it("says at start-up that every commit is flushed to disk by default", async () => {
    const first = await start();
    expect(first.output()).toContain(
      "durability full (synchronous=NORMAL, WAL synced before each acknowledgement, journal=wal)",
    );
  });

  it("refuses a second server on the same directory, naming the holder's pid", async () => {
    const [first] = started;
    const second = runCli(["serve", ...args], { cwd, timeoutMs: 20_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`data directory ${dataDir} is in use by process`);
    expect(second.stderr).toContain(`process ${first?.process.pid} on `);
    expect(second.stdout).not.toContain("listening on");
  });

  it("lets a memory store share the directory, since it writes nothing there", async () => {
    const memory = await start(["--store", "memory"]);
    expect(memory.output()).toContain("store:  memory");
    await stopServer(memory.process);
  });

  it("starts again on the directory once the holder is killed with SIGKILL", async () => {
    const [first] = started;
    await new Promise((resolve) => {
      first?.process.once("exit", resolve);
      first?.process.kill("SIGKILL");
    });
    const next = await start([], { HOLDFAST_DURABILITY: "normal" });
    expect(next.output()).toContain(
      "durability normal (synchronous=NORMAL, WAL synced at checkpoints, journal=wal)",
    );
    const refused = runCli(["serve", ...args], { cwd, timeoutMs: 20_000 });
    expect(refused.stderr).toContain(`process ${next.process.pid} on `);
  });

  it("rejects a durability it does not know before starting", () => {
    const result = runCli(["serve", ...args, "--durability", "fast"], { cwd, timeoutMs: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("--durability: 'fast' is not a durability (full or normal)");
  });
});
