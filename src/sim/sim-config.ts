import { z } from "zod";
import { resolveChains } from "../config/chains.js";
import { builtinConfig, type HoldfastConfig } from "../config/config-file.js";
import { BUILTIN_PACKS, builtinToolCatalogue, createToolCatalogue } from "../tools/catalogue.js";
import { defineTool } from "../tools/tool-declaration.js";
import { AgentTypeRegistry } from "../types/registry.js";

/** A tool outside Holdfast: it may fail or hang, as the fault plan says. */
export const simLookup = defineTool({
  name: "sim_lookup",
  description: "Looks a key up in an external service.",
  parameters: z.object({ key: z.string() }),
  risk: "read",
});

/**
 * The chains of the simulated world, as a `chains:` section of holdfast.yaml would write them:
 * parallel `all` with synthesis and a graded last stage, parallel `any` races (one whose agents
 * get a single step, so that often none succeeds), a sequential pipeline whose templates read
 * earlier stages, and a stage agent that asks before each action.
 */
export const SIM_CHAINS = {
  review: {
    description: "three drafts at once, merged, then graded",
    stages: [
      {
        name: "draft",
        parallel: true,
        agents: [
          { type: "sim_agent", name: "left", task: "draft one of {{input}}" },
          { type: "letta_v1_agent", name: "right" },
          { type: "memgpt_agent", name: "third", task: "draft three of {{input}}" },
        ],
        synthesis: { type: "synthesis", task: "merge the drafts of {{input}}" },
      },
      { name: "grade", scoring: { type: "scoring", min_score: 50 } },
    ],
  },
  race: {
    description: "the first of three to succeed wins",
    stages: [
      {
        name: "race",
        parallel: true,
        success: "any",
        agents: [
          { type: "sim_agent", name: "fast" },
          { type: "memgpt_agent", name: "slow" },
          { type: "sim_careful", name: "wary" },
        ],
      },
    ],
  },
  pipeline: {
    description: "find, check what was found, report on both",
    stages: [
      { name: "find", agents: [{ type: "sim_agent", name: "finder", task: "find {{input}}" }] },
      {
        name: "check",
        agents: [
          { type: "letta_v1_agent", name: "checker", task: "check {{stages.find.output}}" },
          { type: "sim_agent", name: "rechecker", task: "check again: {{previous}}" },
        ],
      },
      {
        name: "report",
        success: "any",
        agents: [
          {
            type: "memgpt_agent",
            name: "writer",
            task: "report {{stages.find.output}} as checked: {{stages.check.output}}",
          },
          { type: "sim_agent", name: "backup", task: "report {{previous}}" },
        ],
      },
    ],
  },
  hasty: {
    description: "two tries of one step each (set for the chain): the first to answer wins",
    limits: { max_iterations: 1 },
    stages: [
      {
        name: "try",
        parallel: true,
        success: "any",
        agents: [
          { type: "sim_agent", name: "one" },
          { type: "letta_v1_agent", name: "two" },
        ],
      },
      {
        name: "polish",
        limits: { max_iterations: 4 },
        agents: [{ type: "sim_agent", name: "polisher", task: "polish {{stages.try.output}}" }],
      },
    ],
  },
  careful: {
    description: "an agent that asks before every action, then a grade",
    stages: [
      { name: "write", agents: [{ type: "sim_careful", name: "writer", task: "write {{input}}" }] },
      {
        name: "grade",
        scoring: { type: "scoring", task: "grade {{previous}} against {{input}}", min_score: 30 },
      },
    ],
  },
};

/**
 * The built-in types plus `sim_agent` (letta_v1 with the external sim_lookup tool),
 * `sim_careful` (the same, asking before every side effect: approvals in sub-agents and chains)
 * and `sim_boss` (an orchestrator that spawns any of them, itself included, two levels deep);
 * the chains above, checked as a config file's would be.
 */
export function simConfig(): HoldfastConfig {
  const base = builtinConfig();
  const letta = base.registry.get("letta_v1_agent");
  const orchestrator = base.registry.get("orchestrator");
  if (!letta || !orchestrator) throw new Error("letta_v1_agent or orchestrator missing");
  const simType = {
    ...letta,
    name: "sim_agent",
    tools: { ...letta.tools, include: ["sim_lookup"] },
  };
  const careful = {
    ...simType,
    name: "sim_careful",
    tools: { ...simType.tools, approval: "per_action" as const },
    policy_profile: "strict" as const,
  };
  const boss = {
    ...orchestrator,
    name: "sim_boss",
    limits: { ...orchestrator.limits, max_spawn_depth: 2 },
  };
  const catalogue = createToolCatalogue(
    [...builtinToolCatalogue().tools.values(), simLookup],
    BUILTIN_PACKS,
  );
  const registry = new AgentTypeRegistry([...base.registry.list(), simType, careful, boss]);
  const resolved = resolveChains(SIM_CHAINS, registry, catalogue);
  if (resolved.errors.length > 0)
    throw new Error(`the sim chains do not check: ${JSON.stringify(resolved.errors)}`);
  const chains = new Map(resolved.chains.map((chain) => [chain.name, chain]));
  return { ...base, catalogue, registry, chains };
}
