import { builtinConfig } from "../../src/config/config-file.js";
import type { Clock } from "../../src/core/clock.js";
import { sequentialIds } from "../../src/core/ids.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { ModelAdapter } from "../../src/llm/model.js";
import { createSimModel } from "../../src/llm/sim/sim-model.js";
import { AgentRuntime } from "../../src/runtime/agent-runtime.js";
import { newAgent } from "../../src/runtime/new-agent.js";
import type { Store } from "../../src/storage/store.js";
import { builtinToolImplementations } from "../../src/tools/registry.js";

/** A runtime over `store` with built-in types and tools, the sim model and a manual clock. */
export function runtimeKit(
  store: Store,
  options: { clock?: Clock; model?: ModelAdapter; idPrefix?: string } = {},
) {
  const config = builtinConfig();
  const clock = options.clock ?? new ManualClock();
  const ids = sequentialIds();
  const model = options.model ?? createSimModel();
  const runtime = new AgentRuntime({
    store,
    config,
    ids: options.idPrefix ? { next: (prefix) => `${ids.next(prefix)}-${options.idPrefix}` } : ids,
    tools: builtinToolImplementations(),
    modelFor: () => model,
    defaultModel: "sim/demo",
    workspaceFor: (_record, readOnly) => ({ root: null, readOnly }),
    clock,
  });
  const create = async (typeName: string, name = typeName) => {
    const type = config.registry.get(typeName);
    if (!type) throw new Error(`no type ${typeName}`);
    const created = newAgent({ name, type }, ids, clock.now());
    await store.createAgent(created);
    return created.agent.id;
  };
  return { runtime, clock, create, model };
}
