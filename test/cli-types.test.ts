import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

describe("holdfast types", () => {
  it("lists every built-in type", () => {
    const result = runCli(["types", "list"]);
    expect(result.status).toBe(0);
    for (const name of ["memgpt_agent", "letta_v1_agent", "react_agent", "synthesis", "verifier"]) {
      expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, "m"));
    }
  });

  it("shows a type's effective capabilities, including what it withholds and why", () => {
    const result = runCli(["types", "show", "memgpt_agent"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/pause_heartbeats\s+read\s+approval never/);
    expect(result.stdout).toContain("5 iterations");
  });

  it("prints JSON that carries the capabilities", () => {
    const result = runCli(["types", "show", "verifier", "--json"]);
    const shown = JSON.parse(result.stdout) as { capabilities: { offered: { risk: string }[] } };
    expect(shown.capabilities.offered.every((tool) => tool.risk === "read")).toBe(true);
  });

  it("exits 1 naming the known types for an unknown one", () => {
    const result = runCli(["types", "show", "ghost"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("unknown agent type 'ghost'; known types: memgpt_agent");
  });

  it("says what each memory depth does (issue 13)", () => {
    expect(runCli(["types", "show", "qa_assistant"]).stdout).toContain(
      "nothing from earlier turns is in context",
    );
    expect(runCli(["types", "show", "tutor"]).stdout).toMatch(
      /only the current session's history is in context \(a session ends when the client ends it or after 60 idle minutes\)/,
    );
    expect(runCli(["types", "show", "memgpt_agent"]).stdout).toContain(
      "the oldest is summarised once it outgrows the context window",
    );
    const file = join(tempDir("holdfast-types-"), "holdfast.yaml");
    writeFileSync(
      file,
      "types:\n  learner:\n    extends: letta_v1_agent\n    memory: { depth: learning, recall_tokens: 800 }\n",
    );
    const learner = runCli(["types", "show", "learner", "-c", file]);
    expect(learner.status).toBe(0);
    expect(learner.stdout).toContain("up to 800 tokens of the most relevant archival passages");
    expect(learner.stdout).toContain("writes what it learned to archival memory");
  });
});
