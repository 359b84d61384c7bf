import { describe, expect, it } from "vitest";
import { checkConfig } from "./config-file.js";

const RESEARCH = {
  stages: [
    {
      name: "research",
      parallel: true,
      agents: [
        { type: "researcher", name: "logs", task: "Logs about {{input}}" },
        { type: "researcher", name: "metrics" },
      ],
      synthesis: { type: "synthesis" },
    },
    { name: "grade", scoring: { min_score: 60, task: "Grade {{stages.research.output}}" } },
  ],
};

const errorsOf = (chains: Record<string, unknown>, rest: Record<string, unknown> = {}) => {
  const result = checkConfig({ ...rest, chains });
  return result.ok ? [] : result.errors;
};

describe("chains in the config file", () => {
  it("resolves a chain: roles, names, templates and the scoring stage", () => {
    const result = checkConfig({ chains: { investigate: RESEARCH } });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const chain = result.config.chains.get("investigate");
    expect(chain?.stages.map((s) => [s.name, s.parallel, s.success])).toEqual([
      ["research", true, "all"],
      ["grade", false, "all"],
    ]);
    expect(chain?.stages[0]?.agents.map((a) => [a.name, a.role, a.type])).toEqual([
      ["logs", "agent", "researcher"],
      ["metrics", "agent", "researcher"],
    ]);
    expect(chain?.stages[0]?.synthesis).toMatchObject({ name: "synthesis", role: "synthesis" });
    expect(chain?.stages[1]?.agents).toMatchObject([{ role: "scoring", type: "scoring" }]);
    expect(chain?.stages[1]?.scoring).toEqual({ min_score: 60, structured: false });
  });

  it("numbers agents named after a repeated type", () => {
    const result = checkConfig({
      chains: {
        c: {
          stages: [
            {
              name: "s",
              agents: [{ type: "researcher" }, { type: "researcher" }, { type: "qa_assistant" }],
            },
          ],
        },
      },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.config.chains.get("c")?.stages[0]?.agents.map((a) => a.name)).toEqual([
      "researcher-1",
      "researcher-2",
      "qa_assistant",
    ]);
  });

  it("inherits chain → stage → agent, the nearer level winning field by field", () => {
    const result = checkConfig({
      chains: {
        c: {
          model: "sim/chain",
          limits: { max_iterations: 5 },
          tools: { approval: "per_action" },
          stages: [
            {
              name: "s",
              model: "sim/stage",
              limits: { max_tool_calls_per_turn: 3 },
              agents: [
                { type: "researcher", limits: { max_iterations: 2 } },
                { type: "researcher", name: "other", model: "sim/agent" },
              ],
            },
          ],
        },
      },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [first, second] = result.config.chains.get("c")?.stages[0]?.agents ?? [];
    expect(first?.overrides).toEqual({
      model: "sim/stage",
      limits: { max_iterations: 2, max_tool_calls_per_turn: 3 },
      tools: { approval: "per_action" },
    });
    expect(second?.overrides.model).toBe("sim/agent");
    expect(second?.overrides.limits).toEqual({ max_iterations: 5, max_tool_calls_per_turn: 3 });
  });

  it("reports every mistake with its full path", () => {
    const errors = errorsOf({
      broken: {
        stages: [
          {
            name: "a",
            agents: [
              { type: "nope" },
              { type: "researcher", task: "{{stages.b.output}} {{stages.zzz.output}}" },
            ],
          },
          { name: "a", agents: [] },
          { name: "b", agents: [{ type: "researcher", task: "{{what}}" }] },
          {
            name: "c",
            agents: [
              { type: "researcher", tools: { access: "full" }, name: "x" },
              { type: "qa_assistant", name: "x" },
            ],
          },
        ],
      },
      Bad: { stages: [] },
      empty: { stages: [] },
      early: {
        stages: [
          { name: "s", scoring: {} },
          { name: "t", agents: [{ type: "researcher" }] },
        ],
      },
      first: { stages: [{ name: "s", agents: [{ type: "researcher", task: "{{previous}}" }] }] },
      extra: { stages: [{ name: "s", agents: [{ type: "researcher" }], paralel: true }] },
    });
    const at = (path: string) => errors.filter((e) => e.path === path).map((e) => e.message);
    expect(at("chains.broken.stages.0.agents.0.type")[0]).toMatch(
      /unknown agent type 'nope'; known types: .*researcher/,
    );
    expect(at("chains.broken.stages.0.agents.1.task")).toEqual([
      "stage 'b' does not run before this one",
      "unknown stage 'zzz'",
    ]);
    expect(at("chains.broken.stages.1.name")).toEqual(["stage 'a' is named twice"]);
    expect(at("chains.broken.stages.1.agents")).toEqual([
      "a stage needs at least one agent (or `scoring:`)",
    ]);
    expect(at("chains.broken.stages.2.agents.0.task")[0]).toMatch(
      /unknown placeholder '\{\{what\}\}'/,
    );
    expect(at("chains.broken.stages.3.agents.0.tools.access")[0]).toMatch(/wider than/);
    expect(at("chains.broken.stages.3.agents.1.name")).toEqual(["agent name 'x' is used twice"]);
    expect(at("chains.Bad")[0]).toMatch(/lowercase/);
    expect(at("chains.empty.stages")).toEqual(["a chain needs at least one stage"]);
    expect(at("chains.early.stages.0.scoring")).toEqual([
      "the scoring stage must be the chain's last",
    ]);
    expect(at("chains.first.stages.0.agents.0.task")[0]).toMatch(/no stage before it/);
    expect(errors.some((e) => e.path.startsWith("chains.extra.stages.0"))).toBe(true);
  });

  it("checks chains against the file's own types", () => {
    const types = { digger: { extends: "researcher" } };
    expect(
      errorsOf({ c: { stages: [{ name: "s", agents: [{ type: "digger" }] }] } }, { types }),
    ).toEqual([]);
  });
});
