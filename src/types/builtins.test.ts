import { describe, expect, it } from "vitest";
import { checkConfig } from "../config/config-file.js";
import { effectiveCapabilities } from "./capabilities.js";

/**
 * The built-ins on a server with a search provider: what the types themselves grant. Without
 * one, web_search is withheld for the server's reason (`src/config/web-section.test.ts`).
 */
const withSearch = checkConfig({
  tools: { web: { search: { provider: "searxng", url: "http://127.0.0.1:8888" } } },
});
if (!withSearch.ok) throw new Error(JSON.stringify(withSearch.errors));
const { registry, catalogue } = withSearch.config;

/** The table of issue #2: what each built-in offers, with no per-agent overrides. */
const EXPECTED: Record<
  string,
  {
    flow: "iterating" | "single_shot";
    history?: boolean;
    tools: string[];
    heartbeats: boolean;
    maxIterations: number;
    readOnly?: boolean;
    replyVia?: "text" | "send_message";
  }
> = {
  memgpt_agent: {
    flow: "iterating",
    tools: [
      "send_message",
      "core_memory_append",
      "core_memory_replace",
      "archival_memory_insert",
      "archival_memory_search",
      "conversation_search",
      "pause_heartbeats",
    ],
    heartbeats: true,
    maxIterations: 5,
    replyVia: "send_message",
  },
  letta_v1_agent: {
    flow: "iterating",
    tools: ["memory_insert", "memory_replace", "conversation_search"],
    heartbeats: false,
    maxIterations: 10,
    replyVia: "text",
  },
  react_agent: { flow: "iterating", tools: ["shell"], heartbeats: false, maxIterations: 10 },
  synthesis: { flow: "single_shot", tools: [], heartbeats: false, maxIterations: 1 },
  scoring: { flow: "single_shot", tools: [], heartbeats: false, maxIterations: 1 },
  orchestrator: {
    flow: "iterating",
    tools: ["spawn_agent", "list_agent_types"],
    heartbeats: false,
    maxIterations: 20,
  },
  verifier: {
    flow: "iterating",
    tools: ["read_file", "list_directory", "search_files"],
    heartbeats: false,
    maxIterations: 5,
    readOnly: true,
  },
  qa_assistant: {
    flow: "single_shot",
    history: false,
    tools: [],
    heartbeats: false,
    maxIterations: 1,
  },
  tutor: { flow: "single_shot", history: true, tools: [], heartbeats: false, maxIterations: 1 },
  researcher: {
    flow: "iterating",
    tools: ["web_search", "web_fetch", "read_file"],
    heartbeats: false,
    maxIterations: 20,
  },
  developer: {
    flow: "iterating",
    tools: [
      "read_file",
      "list_directory",
      "search_files",
      "write_file",
      "edit_file",
      "shell",
      "web_search",
      "web_fetch",
    ],
    heartbeats: false,
    maxIterations: 100,
  },
};

describe("built-in agent types", () => {
  it("registers exactly the built-ins of the table", () => {
    expect(registry.names().sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`gives ${name} the capabilities of the table`, () => {
      const type = registry.get(name);
      expect(type).toBeDefined();
      if (!type) return;
      const caps = effectiveCapabilities(type, {}, catalogue);
      expect(caps.control_flow).toBe(expected.flow);
      expect(caps.offered.map((tool) => tool.name).sort()).toEqual([...expected.tools].sort());
      expect(caps.heartbeats).toBe(expected.heartbeats);
      expect(caps.limits.max_iterations).toBe(expected.maxIterations);
      expect(caps.isolation.read_only).toBe(expected.readOnly ?? false);
      if (expected.history !== undefined) expect(caps.include_history).toBe(expected.history);
      if (expected.replyVia) expect(caps.reply_via).toBe(expected.replyVia);
      expect(caps.withheld).toEqual([]);
    });
  }

  it("offers pause_heartbeats only to the types with heartbeats", () => {
    for (const type of registry.list()) {
      const offered = effectiveCapabilities(type, {}, catalogue).offered.map((t) => t.name);
      expect(offered.includes("pause_heartbeats")).toBe(type.heartbeats);
    }
  });

  it("makes the verifier and researcher unable to write anything", () => {
    for (const name of ["verifier", "researcher"]) {
      const type = registry.get(name);
      if (!type) throw new Error(`missing ${name}`);
      const caps = effectiveCapabilities(
        type,
        { tools: { include: ["write_file", "shell"] } },
        catalogue,
      );
      expect(caps.offered.every((tool) => tool.risk === "read")).toBe(true);
    }
  });

  it("asks the developer's human before every side effect and never before a read", () => {
    const developer = registry.get("developer");
    if (!developer) throw new Error("missing developer");
    for (const grant of effectiveCapabilities(developer, {}, catalogue).offered) {
      expect(grant.approval).toBe(grant.risk === "read" ? "never" : "per_action");
    }
  });

  it("asks once per session before react_agent's first shell command (standard profile)", () => {
    const react = registry.get("react_agent");
    if (!react) throw new Error("missing react_agent");
    expect(effectiveCapabilities(react, {}, catalogue).offered).toEqual([
      { name: "shell", risk: "exec", approval: "per_session" },
    ]);
  });
});
