import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, HOLDFAST_BIN, startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

/** Chains on the `sim/demo` model (no key): it echoes, and stores "remember …" in memory. */
const CONFIG = `server:
  port: 0
types:
  careful_writer:
    extends: letta_v1_agent
    tools: { approval: per_action }
    policy_profile: strict
chains:
  quick:
    description: two readers at once
    stages:
      - name: read
        parallel: true
        agents:
          - { type: qa_assistant, name: left, task: "left {{input}}" }
          - { type: qa_assistant, name: right, task: "right {{input}}" }
  graded:
    stages:
      - name: answer
        agents: [{ type: qa_assistant }]
      - name: grade
        scoring: { min_score: 50 }
  careful:
    stages:
      - name: write
        agents: [{ type: careful_writer, task: "remember {{input}}" }]
`;

const ENV = { HOLDFAST_TOKENS: "", HOLDFAST_TOKEN: "", OPENAI_API_KEY: "", HOLDFAST_CONFIG: "" };

describe("holdfast chains", () => {
  const cwd = tempDir("holdfast-cli-chains-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  afterAll(async () => {
    if (server) await stopServer(server.process);
  });
  const holdfast = (args: string[]): CliResult => {
    const result = spawnSync(
      process.execPath,
      [HOLDFAST_BIN, ...args, "--url", server?.url ?? ""],
      {
        env: { ...process.env, ...ENV },
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it("lists chains and runs one, a line per change when piped, the answer last", async () => {
    server = await startServer([], { cwd, env: ENV });
    expect(server.output()).toContain("chains: quick, graded, careful");
    const listed = holdfast(["chains", "list"]);
    expect(listed.stdout.split("\n")[0]).toBe("quick: read(left ∥ right)  two readers at once");
    expect(listed.stdout).toContain("graded: answer(qa_assistant) → grade(score ≥ 50)");

    const run = holdfast(["chains", "run", "quick", "the disk"]);
    expect(run.status).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^run chainrun-\S+ of chain 'quick': running$/);
    expect(lines).toEqual(
      expect.arrayContaining([
        "read/left [qa_assistant]: completed: You said: left the disk",
        "read/right [qa_assistant]: completed: You said: right the disk",
        "read: completed",
      ]),
    );
    expect(lines.find((l) => l.startsWith("run completed"))).toMatch(/2 model calls, \d+ tokens/);
    expect(run.stdout.trim().endsWith("## right (qa_assistant)\nYou said: right the disk")).toBe(
      true,
    );
  });

  it("exits 1 with the reason when the run fails its score gate", () => {
    const run = holdfast(["chains", "run", "graded", "q"]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("grade: failed: the scoring agent's answer holds no score");
    expect(run.stdout).toContain("run failed · no score");
  });

  it("shows an approval a run waits for and how to answer it; answering lets the run finish", async () => {
    const follower = spawn(
      process.execPath,
      [HOLDFAST_BIN, "chains", "run", "careful", "tea", "--url", server?.url ?? ""],
      {
        env: { ...process.env, ...ENV },
      },
    );
    let output = "";
    follower.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => follower.once("exit", resolve));
    await until(() => /answer: holdfast chains approve/.test(output));
    expect(output).toContain("approval needed: write/careful_writer wants memory_insert(");
    const answer = /answer: holdfast chains approve (\S+) (\S+)/.exec(output);
    const approved = holdfast(["chains", "approve", answer?.[1] ?? "", answer?.[2] ?? ""]);
    expect(approved.stdout.trim()).toMatch(/: (running|completed)$/);
    expect(await exited).toBe(0);
    expect(output).toContain(
      "write/careful_writer [careful_writer]: completed: Noted. I will remember that.",
    );
  });

  it("says plainly when a chain does not exist", () => {
    const run = holdfast(["chains", "run", "nope", "x"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("chain 'nope' not found");
    expect(run.stderr).toContain("known: quick, graded, careful");
  });
});
