import { z } from "zod";
import { builtinConfig, type HoldfastConfig } from "../../config/config-file.js";
import { systemClock } from "../../core/clock.js";
import { productionIds } from "../../core/ids.js";
import type { ModelAdapter } from "../../llm/model.js";
import { createSimModel, type SimScript } from "../../llm/sim/sim-model.js";
import { EmbeddedEngine } from "../../runtime/embedded-engine.js";
import { newAgent } from "../../runtime/new-agent.js";
import type { EngineOptions } from "../../runtime/turns.js";
import type { Store } from "../../storage/store.js";
import { BUILTIN_PACKS, builtinToolCatalogue, createToolCatalogue } from "../../tools/catalogue.js";
import { builtinToolImplementations } from "../../tools/registry.js";
import type { Sandbox } from "../../tools/sandbox/sandbox.js";
import { implementTool, success } from "../../tools/tool.js";
import { defineTool } from "../../tools/tool-declaration.js";
import type { AgentType } from "../../types/agent-type.js";
import { AgentTypeRegistry } from "../../types/registry.js";

/**
 * Agents here have no workspace, so the shell refuses every command before it would start one;
 * no sandbox is needed, and the shell stays offered as it is on a server.
 */
const NO_WORKSPACE_SHELL: Sandbox = { mode: "none" };

/** The trivial read tool of the benchmark's turn shape. */
const lookupTool = implementTool(
  defineTool({
    name: "lookup",
    description: "Looks a key up.",
    parameters: z.object({ key: z.string() }),
    risk: "read",
  }),
  { idempotent: true },
  async ({ key }) => success(`value of ${key}`),
);

/**
 * The benchmark's world: a type that offers only `lookup`, and a sim model at zero latency that
 * answers every user message with one lookup call, then with final text.
 */
export function benchRuntime(
  store: Store,
  world: { types?: AgentType[]; script?: SimScript; model?: ModelAdapter } = {},
): {
  runtime: EmbeddedEngine;
  createAgents(n: number, typeName?: string): Promise<string[]>;
} {
  const { options, createAgents } = benchWorld(store, world);
  return { runtime: new EmbeddedEngine(options), createAgents };
}

/** The benchmark's world as engine options, for any engine (a Restate worker's too). */
export function benchWorld(
  store: Store,
  world: { types?: AgentType[]; script?: SimScript; model?: ModelAdapter } = {},
): {
  options: EngineOptions;
  createAgents(n: number, typeName?: string): Promise<string[]>;
} {
  const base = builtinConfig();
  const letta = base.registry.get("letta_v1_agent");
  if (!letta) throw new Error("letta_v1_agent missing");
  const benchType = {
    ...letta,
    name: "bench",
    description: "benchmark: one lookup, then an answer",
    tools: { ...letta.tools, packs: [], include: ["lookup"] },
    memory: { ...letta.memory, blocks: [] },
  };
  const builtin = builtinToolCatalogue();
  const catalogue = createToolCatalogue(
    [...builtin.tools.values(), lookupTool.declaration],
    BUILTIN_PACKS,
  );
  const config: HoldfastConfig = {
    ...base,
    catalogue,
    registry: new AgentTypeRegistry([benchType, ...(world.types ?? [])]),
  };
  const tools = builtinToolImplementations(NO_WORKSPACE_SHELL);
  tools.set("lookup", lookupTool);
  const model =
    world.model ??
    createSimModel({
      remember: false,
      script:
        world.script ??
        ((request, call) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "found it" }
            : { toolCalls: [{ name: "lookup", args: { key: `k${call}` } }] }),
    });
  const options: EngineOptions = {
    store,
    config,
    ids: productionIds,
    tools,
    modelFor: () => model,
    defaultModel: "sim/bench",
    workspaceFor: (_record, isolation) => ({
      root: null,
      readOnly: isolation.read_only,
      network: isolation.network,
    }),
    clock: systemClock,
    maxActivations: 100_000,
  };
  const createAgents = async (n: number, typeName = "bench") => {
    const type = config.registry.get(typeName);
    if (!type) throw new Error(`no bench type ${typeName}`);
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const created = newAgent({ name: `bench-${i}`, type }, productionIds, Date.now());
      await store.createAgent(created);
      ids.push(created.agent.id);
    }
    return ids;
  };
  return { options, createAgents };
}
