import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../src/core/random.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

/** npm test runs a few rounds; `npm run test:crash` runs many (CRASH_ROUNDS=200). */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 6);
const AGENTS = Number(process.env.CRASH_AGENTS ?? 8);
const MESSAGES = Number(process.env.CRASH_MESSAGES ?? 60);
const SEED = Number(process.env.CRASH_SEED ?? 1);
const DRIVER = fileURLToPath(new URL("./driver.mjs", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "holdfast-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Round {
  lines: string[];
  exitedOnItsOwn: boolean;
}

function runDriver(db: string, killAfterMs: number | null): Promise<Round> {
  const child: ChildProcess = spawn(
    process.execPath,
    [DRIVER, db, String(AGENTS), String(MESSAGES)],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  let errors = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  // The kill is timed from the driver's "opened" line, so a slow start-up (a loaded machine
  // loading modules) does not swallow the whole window and leave no turn to interrupt.
  let timer: NodeJS.Timeout | null = null;
  child.stdout?.on("data", () => {
    if (timer === null && killAfterMs !== null && output.startsWith("opened\n"))
      timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === null && code !== 0) reject(new Error(`driver failed (${code}):\n${errors}`));
      resolve({ lines: output.split("\n").filter(Boolean), exitedOnItsOwn: signal === null });
    });
  });
}

describe("crash recovery with real processes", () => {
  it(`loses and duplicates nothing across ${ROUNDS} kill -9 rounds`, {
    timeout: 600_000,
  }, async () => {
    const db = join(dir, "crash.db");
    const random = seededRandom(SEED);
    const acked = new Set<string>();
    const lines: string[] = [];
    let kills = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Kill between process start and well into the work, so some rounds die mid-turn.
      const result = await runDriver(db, 100 + Math.floor(random.next() * 400));
      lines.push(...result.lines);
      if (result.exitedOnItsOwn) break;
      kills += 1;
    }
    expect(kills, "no round was killed: the workload is too small").toBeGreaterThan(0);
    const final = await runDriver(db, null);
    lines.push(...final.lines);
    expect(final.lines.at(-1)).toBe("done");
    for (const line of lines) if (line.startsWith("ack ")) acked.add(line.split(" ")[2] ?? "");
    const resumed = lines
      .filter((line) => line.startsWith("interrupted "))
      .reduce((sum, line) => sum + Number(line.split(" ")[1]), 0);
    expect(resumed, "no kill landed mid-turn: nothing was recovered").toBeGreaterThan(0);
    if (process.env.CRASH_REPORT) {
      const summary = {
        rounds: ROUNDS,
        kills,
        resumed,
        acks: acked.size,
        agents: AGENTS,
        messages: MESSAGES,
      };
      writeFileSync(process.env.CRASH_REPORT, `${JSON.stringify(summary)}\n`);
    }
    expect(lines.filter((line) => line.startsWith("violation"))).toEqual([]);

    const store = await openSqliteStore(db);
    const agents = await store.listAgents("default", { limit: 1000, order: "asc" });
    expect(agents).toHaveLength(AGENTS);
    const seenOtids = new Set<string>();
    for (const agent of agents) {
      const messages = await store.listMessages(agent.id, { limit: 100_000, order: "asc" });
      const otids = messages.flatMap((m) =>
        m.message_type === "user_message" && m.otid ? [m.otid] : [],
      );
      expect(new Set(otids).size, `duplicate user messages for ${agent.name}`).toBe(otids.length);
      expect(otids).toHaveLength(MESSAGES);
      for (const otid of otids) seenOtids.add(otid);
      const passages = (await store.listPassages(agent.id, { limit: 100_000, order: "asc" })).map(
        (p) => p.text,
      );
      expect(new Set(passages).size, `a memory effect ran twice for ${agent.name}`).toBe(
        passages.length,
      );
      expect(passages).toHaveLength(MESSAGES);
      expect((await store.loadSession(agent.id))?.phase).toBe("idle");
    }
    for (const otid of acked)
      expect(seenOtids.has(otid), `acknowledged ${otid} was lost`).toBe(true);
    expect(await store.interruptedSessions()).toEqual([]);
    await store.close();
  });
});
