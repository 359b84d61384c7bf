import { describe, expect, it } from "vitest";
import { SessionState } from "../records/session-state.js";
import { checkClientArguments, clientToolDeclaration, clientToolProblems } from "./client-tools.js";

const secret = {
  name: "get_secret_code",
  description: "Returns a secret code for the given text.",
  parameters: {
    type: "object",
    properties: { input_text: { type: "string" } },
    required: ["input_text"],
  },
};

describe("client tools", () => {
  it("accepts distinct tools with object schemas, or none", () => {
    expect(clientToolProblems([secret, { name: "ping" }], ["memory_insert"])).toEqual([]);
  });

  it("names the field of a name given twice or taken by the agent's own tool", () => {
    const problems = clientToolProblems(
      [secret, { ...secret }, { name: "memory_insert" }],
      ["memory_insert"],
    );
    expect(problems.map((p) => p.path)).toEqual(["client_tools.1.name", "client_tools.2.name"]);
    expect(problems[0]?.message).toContain("twice");
    expect(problems[1]?.message).toContain("the agent has a tool named 'memory_insert'");
  });

  it("refuses a schema that is not an object's, or not JSON Schema at all", () => {
    const problems = clientToolProblems(
      [
        { name: "a", parameters: { type: "string" } },
        { name: "b", parameters: { type: "object", properties: { x: { type: "nonsense" } } } },
      ],
      [],
    );
    expect(problems.map((p) => p.path)).toEqual([
      "client_tools.0.parameters",
      "client_tools.1.parameters",
    ]);
    expect(problems[1]?.message).toContain("not a usable JSON Schema");
  });

  it("offers the tool with its JSON Schema as given, and an empty object schema without one", () => {
    expect(clientToolDeclaration(secret).jsonSchema).toEqual(secret.parameters);
    expect(clientToolDeclaration({ name: "ping" })).toMatchObject({
      description: "",
      jsonSchema: { type: "object", properties: {} },
    });
  });

  it("checks a call's arguments against the tool's schema, ignoring the loop's own", () => {
    expect(checkClientArguments(secret, '{"input_text":"hi","request_heartbeat":true}')).toBe(null);
    expect(checkClientArguments(secret, "{}")).toContain("invalid arguments: input_text");
    expect(checkClientArguments(secret, "not json")).toContain("not valid JSON");
    expect(checkClientArguments(secret, "[1]")).toBe("the arguments must be a JSON object");
  });

  it("reads a version 3 checkpoint, from before client tools, with none", () => {
    const v3 = {
      version: 3,
      session_id: "s",
      phase: "idle",
      run_id: null,
      step_id: null,
      iteration: 0,
      tool_calls: 0,
      counts: {},
      last_tool: null,
      pending: [],
      offered: [],
      after_tools: null,
      forced_final: false,
      pause_until_ms: null,
      stop_reason: null,
      approved_tools: [],
      usage: { prompt_tokens: 0, completion_tokens: 0, step_count: 0 },
    };
    expect(SessionState.parse(v3).client_tools).toEqual([]);
  });
});
