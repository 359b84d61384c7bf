import { describe, expect, it } from "vitest";
import { checkConfig } from "../config/config-file.js";

const VERDICT = {
  type: "object",
  properties: { score: { type: "number" }, reasons: { type: "array", items: { type: "string" } } },
  required: ["score", "reasons"],
};

const errorsOf = (document: Record<string, unknown>) => {
  const result = checkConfig(document);
  return result.ok ? [] : result.errors;
};

const judge = (structured_output: unknown, rest: Record<string, unknown> = {}) => ({
  types: { judge: { extends: "scoring", structured_output, ...rest } },
});

describe("output schemas in the config file", () => {
  it("accepts a JSON schema on a single_shot type, named 'response' unless named", () => {
    const result = checkConfig(judge({ schema: VERDICT }));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.config.registry.get("judge")?.structured_output).toEqual({
      name: "response",
      schema: VERDICT,
    });
  });

  it.each([
    [
      "a misspelt type",
      { type: "object", properties: { score: { type: "numbr" } } },
      "types.judge.structured_output.schema.properties.score.type",
    ],
    [
      "an unknown keyword",
      { type: "object", properties: { score: { type: "number", minimun: 0 } } },
      "types.judge.structured_output.schema",
    ],
    [
      "a root that is not an object",
      { type: "array", items: { type: "number" } },
      "types.judge.structured_output.schema.type",
    ],
    [
      "a draft it does not know",
      { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
      "types.judge.structured_output.schema",
    ],
    [
      "a $ref it cannot resolve",
      { type: "object", properties: { score: { $ref: "https://example.com/score.json" } } },
      "types.judge.structured_output.schema",
    ],
    [
      "a $ref that leads back to where it stands",
      { type: "object", properties: { a: { $ref: "#/properties/a" } } },
      "types.judge.structured_output.schema.properties.a",
    ],
    [
      "a pattern RE2 does not take (a back-reference)",
      { type: "object", properties: { a: { type: "string", pattern: "(a)\\1" } } },
      "types.judge.structured_output.schema",
    ],
    [
      "required that is not a list",
      { type: "object", required: "score" },
      "types.judge.structured_output.schema.required",
    ],
  ])("refuses %s at its path", (_what, schema, path) => {
    const errors = errorsOf(judge({ schema }));
    expect(errors.map((error) => error.path)).toContain(path);
  });

  it("names the unknown keyword it refuses", () => {
    const schema = { type: "object", properties: { score: { type: "number", minimun: 0 } } };
    expect(errorsOf(judge({ schema }))[0]?.message).toContain('unknown keyword: "minimun"');
  });

  it("refuses unknown fields and a bad name next to the schema", () => {
    const paths = errorsOf(judge({ schema: VERDICT, name: "a b", strict: true })).map(
      (e) => e.path,
    );
    expect(paths.sort()).toEqual([
      "types.judge.structured_output.name",
      "types.judge.structured_output.strict",
    ]);
  });

  it("refuses an output schema on an iterating type", () => {
    const errors = errorsOf({
      types: { talker: { extends: "letta_v1_agent", structured_output: { schema: VERDICT } } },
    });
    expect(errors).toEqual([
      {
        path: "types.talker.structured_output",
        message: expect.stringContaining("needs control_flow single_shot"),
      },
    ]);
  });

  it("refuses an agent's output schema over an iterating type in a chain, at its path", () => {
    const errors = errorsOf({
      chains: {
        c: {
          stages: [
            {
              name: "s",
              agents: [{ type: "letta_v1_agent", structured_output: { schema: VERDICT } }],
            },
          ],
        },
      },
    });
    expect(errors.map((error) => error.path)).toEqual([
      "chains.c.stages.0.agents.0.structured_output",
    ]);
  });

  it("makes a chain read a structured scorer's score, and requires the schema to have one", () => {
    const stages = (scoring: Record<string, unknown>) => [
      { name: "answer", agents: [{ type: "qa_assistant" }] },
      { name: "grade", scoring },
    ];
    const ok = checkConfig({
      ...judge({ schema: VERDICT }),
      chains: { c: { stages: stages({ type: "judge" }) } },
    });
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    expect(ok.config.chains.get("c")?.stages[1]?.scoring).toEqual({
      min_score: null,
      structured: true,
    });
    const noScore = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    const errors = errorsOf({
      chains: { c: { stages: stages({ structured_output: { schema: noScore } }) } },
    });
    expect(errors).toEqual([
      {
        path: "chains.c.stages.1.scoring.structured_output",
        message:
          "a scoring agent's output schema 'response' must require a 'score' of type number or integer",
      },
    ]);
  });
});
