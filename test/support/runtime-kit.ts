import { sequentialIds } from "../../src/core/ids.js";
import type { ManualClock } from "../../src/core/manual-clock.js";
import type { SimModel } from "../../src/llm/sim/sim-model.js";
import { newAgent } from "../../src/runtime/new-agent.js";
import type { Store } from "../../src/storage/store.js";
import { serviceKit } from "./service-kit.js";

/**
 * The runtime of a service kit over `store`, and a way to create agents of built-in types.
 * `idPrefix` keeps the ids of a second runtime on the same store (a restart) apart.
 */
export function runtimeKit(
  store: Store,
  options: { clock?: ManualClock; model?: SimModel; idPrefix?: string } = {},
) {
  const base = sequentialIds();
  const ids = options.idPrefix
    ? { next: (prefix: string) => `${base.next(prefix)}-${options.idPrefix}` }
    : base;
  const { runtime, config, clock, model } = serviceKit({ ...options, store, ids });
  const create = async (typeName: string, name = typeName) => {
    const type = config.registry.get(typeName);
    if (!type) throw new Error(`no type ${typeName}`);
    const created = newAgent({ name, type }, base, clock.now());
    await store.createAgent(created);
    return created.agent.id;
  };
  return { runtime, clock, create, model };
}
