import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";

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
});
