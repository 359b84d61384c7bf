import fc from "fast-check";
import { AgentType } from "../../src/types/agent-type.js";
import { AgentOverrides } from "../../src/types/overrides.js";

/** What random types and overrides may name: tools, packs, type names, workspace roots. */
export interface TypeSpace {
  names: readonly string[];
  packs: readonly string[];
  typeNames: readonly string[];
  roots: readonly string[];
  maxSpawnDepth: number;
  /** How much more often the common case comes than the rare one (see `mostly`). */
  commonWeight: number;
}

/**
 * fast-check arbitraries for agent types and per-agent overrides over a space of names: the
 * property tests of capabilities and of sub-agent policy draw from the same shapes.
 */
export function typeArbitraries(space: TypeSpace) {
  /** Mostly `common`, sometimes `rare`: keeps enough cases where some tool is offered. */
  const mostly = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: common, weight: space.commonWeight }, { arbitrary: rare, weight: 1 });
  const flag = mostly(fc.constant(false), fc.constant(true));
  const names = (maxLength: number) =>
    fc.uniqueArray(fc.constantFrom(...space.names), { maxLength });
  const allowList = mostly(fc.constant(null), fc.subarray([...space.names]));
  const packs = () => fc.uniqueArray(fc.constantFrom(...space.packs), { maxLength: 5 });
  const access = mostly(
    fc.constantFrom("constrained", "full"),
    fc.constantFrom("none", "read_only"),
  );
  const approval = fc.constantFrom("never", "per_session", "per_action" as const);
  const profile = fc.constantFrom("permissive", "standard", "strict" as const);
  const root = fc.constantFrom(...space.roots);
  const limits = {
    max_iterations: fc.integer({ min: 1, max: 1000 }),
    max_tool_calls_per_turn: fc.integer({ min: 1, max: 10_000 }),
    max_tokens_per_turn: fc.integer({ min: 1, max: 10_000_000 }),
    max_spawn_depth: fc.integer({ min: 0, max: space.maxSpawnDepth }),
  };
  const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T) =>
    fc.record(model, { requiredKeys: [] });
  const tools = {
    packs: packs(),
    include: names(8),
    allow: allowList,
    deny: names(3),
    access,
    approval,
  };

  const typeArb: fc.Arbitrary<AgentType> = fc
    .record({
      name: fc.constantFrom(...space.typeNames),
      description: fc.string({ maxLength: 10 }),
      control_flow: mostly(fc.constant("iterating"), fc.constant("single_shot")),
      include_history: fc.boolean(),
      model: fc.option(fc.constantFrom("sim/demo", "openai/gpt-4.1-mini")),
      system_prompt: fc.string({ maxLength: 10 }),
      reply_via: fc.constantFrom("text", "send_message" as const),
      tools: fc.record(tools),
      memory: fc.record({
        depth: fc.constantFrom("stateless", "session", "persistent", "learning" as const),
        blocks: fc.constant([]),
        archival: fc.boolean(),
        conversation_search: fc.boolean(),
      }),
      limits: fc.record(limits),
      heartbeats: fc.boolean(),
      isolation: fc.record({
        read_only: flag,
        workspace_root: fc.option(root),
        network: fc.boolean(),
      }),
      policy_profile: profile,
      intent_required: flag,
      final_answer_at_limit: fc.boolean(),
      verify: fc.constant(null),
    })
    .map((type) => AgentType.parse(type));

  const overridesArb: fc.Arbitrary<AgentOverrides> = partial({
    model: fc.constantFrom("sim/other", "ollama/qwen3:8b"),
    system_prompt: fc.string({ maxLength: 10 }),
    tools: partial(tools),
    memory: partial({ archival: fc.boolean(), conversation_search: fc.boolean() }),
    limits: partial(limits),
    heartbeats: fc.boolean(),
    isolation: partial({ read_only: flag, workspace_root: fc.option(root), network: fc.boolean() }),
    policy_profile: profile,
    intent_required: flag,
  }).map((overrides) => AgentOverrides.parse(overrides));

  return { typeArb, overridesArb };
}
