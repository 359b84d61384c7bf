import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

const dir = tempDir("holdfast-config-");
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("holdfast config check", () => {
  it("exits 0 for a good file", () => {
    const path = file(
      "good.yaml",
      `defaults:
  model: openai/gpt-4.1-mini
tool_packs:
  reading: [read_file, web_fetch]
types:
  careful_researcher:
    extends: researcher
    description: A researcher that never fetches pages
    tools:
      deny: [web_fetch]
`,
    );
    const result = runCli(["config", "check", path]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("ok (12 agent types");
    expect(result.status).toBe(0);
  });

  it("prints each error with its path and exits 1", () => {
    const path = file(
      "bad.yaml",
      `types:
  typo:
    tools:
      alow: [read_file]
  legacy:
    iteration_strategy: native-thinking
  orphan:
    extends: nobody
  ping:
    extends: pong
  pong:
    extends: ping
`,
    );
    const result = runCli(["config", "check", path]);
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toEqual([
      `${path}: types.typo.tools.alow: unknown field`,
      expect.stringMatching(
        /: types\.legacy\.iteration_strategy: 'iteration_strategy' was removed.*control_flow/,
      ),
      expect.stringMatching(/: types\.orphan\.extends: extends unknown type 'nobody'/),
      `${path}: types.ping.extends: extends cycle: ping → pong → ping`,
      `${path}: types.pong.extends: extends cycle: pong → ping → pong`,
      "5 errors",
    ]);
  });

  it("checks chains: the shipped example is ok; each mistake has its path, at start-up too", () => {
    const example = new URL("../examples/investigation.yaml", import.meta.url).pathname;
    const good = runCli(["config", "check", example]);
    expect(good.stdout).toContain("ok (12 agent types, 12 tool packs, 1 chain)");
    expect(good.status).toBe(0);
    const path = file(
      "chains.yaml",
      `chains:
  broken:
    stages:
      - name: look
        agents: [{ type: nobody }]
      - name: look
        agents: []
      - name: merge
        agents: [{ type: synthesis, task: "{{stages.later.output}}" }]
`,
    );
    const result = runCli(["config", "check", path]);
    expect(result.status).toBe(1);
    expect(result.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(
        /: chains\.broken\.stages\.0\.agents\.0\.type: unknown agent type 'nobody'/,
      ),
      `${path}: chains.broken.stages.1.name: stage 'look' is named twice`,
      `${path}: chains.broken.stages.1.agents: a stage needs at least one agent (or \`scoring:\`)`,
      `${path}: chains.broken.stages.2.agents.0.task: unknown stage 'later'`,
      "4 errors",
    ]);
    const serve = runCli(["serve", "--config", path, "--port", "0"]);
    expect(serve.status).toBe(1);
    expect(serve.stdout + serve.stderr).toContain(
      "chains.broken.stages.1.name: stage 'look' is named twice",
    );
  });

  it("reads JSON too, and reports a YAML syntax error by line", () => {
    const json = file(
      "good.json",
      JSON.stringify({ types: { quick: { extends: "qa_assistant" } } }),
    );
    expect(runCli(["config", "check", json]).status).toBe(0);
    const broken = file("broken.yaml", "types:\n  a: [unclosed\n");
    const result = runCli(["config", "check", broken]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/\(line \d+, column \d+\)/);
  });

  it("finds holdfast.yaml in the working directory when no file is given", () => {
    const cwd = tempDir("holdfast-cwd-");
    writeFileSync(join(cwd, "holdfast.yaml"), "types:\n  mine:\n    extends: ghost\n");
    const result = runCli(["config", "check"], { cwd });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("types.mine.extends");
  });
});
