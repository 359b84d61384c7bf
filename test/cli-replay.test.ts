import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, HOLDFAST_BIN, startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

const ENV = { HOLDFAST_TOKENS: "", HOLDFAST_TOKEN: "", OPENAI_API_KEY: "", HOLDFAST_CONFIG: "" };

describe("holdfast replay", () => {
  const dir = tempDir("holdfast-cli-replay-");
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
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server?.url}${path}`, {
      method,
      // spawnSync blocks this process for seconds: a kept-alive socket may be closed meanwhile.
      headers: { "content-type": "application/json", connection: "close" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  it("reports a match for the latest run, then the step a new tool rule changes", async () => {
    server = await startServer(["--port", "0", "--data-dir", join(dir, "data")], {
      cwd: dir,
      env: ENV,
    });
    const agent = await api("POST", "/v1/agents/", { agent_type: "letta_v1_agent", name: "tea" });
    const id = String(agent.id);
    await api("POST", `/v1/agents/${id}/messages`, {
      messages: [{ role: "user", content: "remember I like tea" }],
    });

    const same = holdfast(["replay", "tea"]);
    expect(same.stderr).toBe("");
    expect(same.status).toBe(0);
    expect(same.stdout).toMatch(
      new RegExp(
        `^run run-\\S+ of ${id} \\(type letta_v1_agent\\): matches: today's code and config make the same \\d+ decisions\\n$`,
      ),
    );

    await api("PATCH", `/v1/agents/${id}`, {
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    const runId = /^run (\S+)/.exec(same.stdout)?.[1] ?? "";
    const changed = holdfast(["replay", id, "--run", runId]);
    expect(changed.status).toBe(2);
    expect(changed.stdout.split("\n").slice(1, 4)).toEqual([
      "  recorded: run 'memory_insert' (call 0)",
      "  today:    ask for approval of 'memory_insert' (call 0)",
      "  why:      a requires_approval tool rule now covers 'memory_insert'",
    ]);
    expect(changed.stdout).toMatch(/diverges at decision 2 \(in model step step-\S+\)/);

    const json = holdfast(["replay", id, "--run", runId, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ matches: false, step: 2, run_id: runId });

    const missing = holdfast(["replay", id, "--run", "run-nope"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^holdfast: /);
  });
});
