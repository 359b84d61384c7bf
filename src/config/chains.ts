import type { FieldError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { ToolCatalogue } from "../tools/catalogue.js";
import { checkOverrides } from "../types/override-check.js";
import { AgentOverrides } from "../types/overrides.js";
import type { AgentTypeRegistry } from "../types/registry.js";
import { explainRemovedField } from "../types/removed-fields.js";
import {
  type ChainAgentSpec,
  type ChainDefinition,
  ChainDraft,
  ChainName,
  type ChainRole,
  type ChainStage,
  type StageDraft,
} from "./chain-definition.js";
import { parseTemplate, stagesNamed, type TemplatePart } from "./chain-template.js";

const OVERRIDE_KEYS = AgentOverrides.keyof().options;
/** Sections merged key by key down the levels; every other field is replaced. */
const NESTED = new Set(["tools", "memory", "limits", "isolation"]);

/** The agent overrides a chain, stage or agent draft sets. */
function overridesOf(draft: Record<string, unknown>): AgentOverrides {
  const picked: Record<string, unknown> = {};
  for (const key of OVERRIDE_KEYS) if (draft[key] !== undefined) picked[key] = draft[key];
  return picked as AgentOverrides;
}

/** `lower` on top of `upper`: the nearer level wins, field by field. */
export function mergeOverrides(upper: AgentOverrides, lower: AgentOverrides): AgentOverrides {
  const merged: Record<string, unknown> = { ...upper };
  for (const [key, value] of Object.entries(lower)) {
    const above = merged[key];
    merged[key] =
      NESTED.has(key) && typeof above === "object" && above !== null
        ? { ...above, ...(value as object) }
        : value;
  }
  return merged as AgentOverrides;
}

export interface ChainResolution {
  chains: ChainDefinition[];
  errors: FieldError[];
}

/** Checks the `chains:` section against the types and tools; every problem with its path. */
export function resolveChains(
  section: Record<string, unknown>,
  registry: AgentTypeRegistry,
  catalogue: ToolCatalogue,
): ChainResolution {
  const chains: ChainDefinition[] = [];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(section)) {
    const path = `chains.${name}`;
    const badName = ChainName.safeParse(name).error?.issues[0]?.message;
    if (badName) {
      errors.push({ path, message: badName });
      continue;
    }
    const parsed = ChainDraft.safeParse(value);
    if (!parsed.success) {
      errors.push(...fieldErrorsFromZod(parsed.error, [path], explainRemovedField));
      continue;
    }
    const checker = new ChainChecker(registry, catalogue, path, errors);
    const chain = checker.chain(name, parsed.data);
    if (chain) chains.push(chain);
  }
  return { chains, errors };
}

class ChainChecker {
  #failed = false;

  constructor(
    private readonly registry: AgentTypeRegistry,
    private readonly catalogue: ToolCatalogue,
    private readonly path: string,
    private readonly errors: FieldError[],
  ) {}

  chain(name: string, draft: ChainDraft): ChainDefinition | null {
    if (draft.stages.length === 0) this.#error("stages", "a chain needs at least one stage");
    const seen = new Set<string>();
    const stages = draft.stages.map((stage, i) => {
      if (seen.has(stage.name)) {
        this.#error(`stages.${i}.name`, `stage '${stage.name}' is named twice`);
      }
      seen.add(stage.name);
      const later = draft.stages.slice(i).map((s) => s.name);
      const earlier = draft.stages.slice(0, i).map((s) => s.name);
      return this.#stage(stage, `stages.${i}`, overridesOf(draft), { earlier, later }, i);
    });
    const scoringAt = draft.stages.findIndex((stage) => stage.scoring);
    if (scoringAt !== -1 && scoringAt !== draft.stages.length - 1) {
      this.#error(`stages.${scoringAt}.scoring`, "the scoring stage must be the chain's last");
    }
    return this.#failed ? null : { name, description: draft.description ?? "", stages };
  }

  #stage(
    draft: StageDraft,
    path: string,
    inherited: AgentOverrides,
    order: { earlier: string[]; later: string[] },
    index: number,
  ): ChainStage {
    const settings = mergeOverrides(inherited, overridesOf(draft));
    const agents = numbered(
      (draft.agents ?? []).map((agent, i) =>
        this.#agent("agent", agent, `${path}.agents.${i}`, settings, order, index),
      ),
      draft.agents ?? [],
    );
    if (draft.scoring) {
      if (agents.length > 0 || draft.synthesis) {
        this.#error(`${path}.scoring`, "a scoring stage has no agents or synthesis of its own");
      }
      const scorer = this.#agent(
        "scoring",
        draft.scoring,
        `${path}.scoring`,
        settings,
        order,
        index,
      );
      const structured = this.#scoringSchema(scorer, `${path}.scoring`);
      return {
        ...this.#shape(draft),
        agents: [scorer],
        synthesis: null,
        scoring: { min_score: draft.scoring.min_score ?? null, structured },
      };
    }
    if (agents.length === 0) {
      this.#error(`${path}.agents`, "a stage needs at least one agent (or `scoring:`)");
    }
    agents.forEach((agent, i) => {
      if (agents.findIndex((other) => other.name === agent.name) !== i) {
        this.#error(`${path}.agents.${i}.name`, `agent name '${agent.name}' is used twice`);
      }
    });
    const synthesis = draft.synthesis
      ? this.#agent("synthesis", draft.synthesis, `${path}.synthesis`, settings, order, index)
      : null;
    const clash = synthesis ? agents.findIndex((agent) => agent.name === synthesis.name) : -1;
    if (clash !== -1) {
      this.#error(
        `${path}.agents.${clash}.name`,
        `'${synthesis?.name}' names the stage's synthesis`,
      );
    }
    return { ...this.#shape(draft), agents, synthesis, scoring: null };
  }

  /**
   * Whether the scorer answers in JSON (its type's or its own output schema); such a schema
   * must require a numeric `score`, which the chain then reads instead of searching the text.
   */
  #scoringSchema(scorer: ChainAgentSpec, path: string): boolean {
    const type = this.registry.get(scorer.type);
    if (type?.control_flow !== "single_shot") return false;
    const own = scorer.overrides.structured_output;
    const output = own !== undefined ? own : type.structured_output;
    if (!output) return false;
    const { properties, required } = output.schema as {
      properties?: Record<string, { type?: unknown }>;
      required?: unknown;
    };
    const scoreType = properties?.score?.type;
    const numeric = scoreType === "number" || scoreType === "integer";
    if (!numeric || !Array.isArray(required) || !required.includes("score")) {
      const where = own !== undefined ? `${path}.structured_output` : `${path}.type`;
      this.#error(
        where,
        `a scoring agent's output schema '${output.name}' must require a 'score' of type number or integer`,
      );
    }
    return true;
  }

  #shape(draft: StageDraft) {
    return {
      name: draft.name,
      description: draft.description ?? "",
      parallel: draft.parallel,
      success: draft.success,
    };
  }

  #agent(
    role: ChainRole,
    draft: { type: string; name?: string; task?: string } & Record<string, unknown>,
    path: string,
    inherited: AgentOverrides,
    order: { earlier: string[]; later: string[] },
    stageIndex: number,
  ): ChainAgentSpec {
    const overrides = mergeOverrides(inherited, overridesOf(draft));
    const type = this.registry.get(draft.type);
    if (!type) {
      const known = this.registry.names().join(", ");
      this.#error(`${path}.type`, `unknown agent type '${draft.type}'; known types: ${known}`);
    } else {
      for (const error of checkOverrides(type, overrides, this.catalogue)) {
        this.#error(`${path}.${error.path}`, error.message);
      }
    }
    return {
      role,
      name: draft.name ?? (role === "agent" ? draft.type : role),
      type: draft.type,
      overrides,
      task:
        draft.task === undefined
          ? null
          : this.#template(draft.task, `${path}.task`, order, stageIndex),
    };
  }

  #template(
    source: string,
    path: string,
    order: { earlier: string[]; later: string[] },
    stageIndex: number,
  ): TemplatePart[] | null {
    const parsed = parseTemplate(source);
    if (!parsed.ok) {
      this.#error(path, parsed.message);
      return null;
    }
    for (const stage of stagesNamed(parsed.parts)) {
      if (order.later.includes(stage)) {
        this.#error(path, `stage '${stage}' does not run before this one`);
      } else if (!order.earlier.includes(stage)) {
        this.#error(path, `unknown stage '${stage}'`);
      }
    }
    if (stageIndex === 0 && parsed.parts.some((part) => part.kind === "previous")) {
      this.#error(path, "{{previous}} has no stage before it in the first stage");
    }
    return parsed.parts;
  }

  #error(path: string, message: string): void {
    this.#failed = true;
    this.errors.push({ path: `${this.path}.${path}`, message });
  }
}

/** Agents named after their type get a number when a stage has the type more than once. */
function numbered(
  agents: ChainAgentSpec[],
  drafts: readonly { name?: string }[],
): ChainAgentSpec[] {
  return agents.map((agent, i) => {
    if (drafts[i]?.name) return agent;
    const same = agents.filter((other, j) => !drafts[j]?.name && other.type === agent.type);
    if (same.length < 2) return agent;
    return { ...agent, name: `${agent.name}-${same.indexOf(agent) + 1}` };
  });
}
