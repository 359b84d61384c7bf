import { builtinConfig } from "../config/config-file.js";
import { sequentialIds } from "../core/ids.js";
import { ManualClock } from "../core/manual-clock.js";
import { createSimModel, type SimScript } from "../llm/sim/sim-model.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import { openSqliteStore } from "../storage/sqlite/sqlite-store.js";
import type { Store } from "../storage/store.js";
import { builtinToolImplementations } from "../tools/registry.js";
import { EmbeddedEngine } from "./embedded-engine.js";
import { engineContract } from "./engine.contract.js";
import { newAgent } from "./new-agent.js";

function embedded(open: () => Promise<Store>) {
  return async (script: SimScript) => {
    const store = await open();
    const config = builtinConfig();
    const clock = new ManualClock();
    const ids = sequentialIds();
    const model = createSimModel({ script });
    const engine = new EmbeddedEngine({
      store,
      config,
      ids,
      clock,
      tools: builtinToolImplementations({ mode: "none" }),
      modelFor: () => model,
      defaultModel: "sim/demo",
      workspaceFor: (_record, isolation) => ({
        root: null,
        readOnly: isolation.read_only,
        network: isolation.network,
      }),
    });
    const create = async (typeName: string) => {
      const type = config.registry.get(typeName);
      if (!type) throw new Error(`no type ${typeName}`);
      const created = newAgent({ name: typeName, type }, ids, clock.now());
      await store.createAgent(created);
      return created.agent.id;
    };
    return { engine, store, create };
  };
}

engineContract(
  "the embedded engine on the in-memory store",
  embedded(async () => createInMemoryStore()),
);
engineContract(
  "the embedded engine on SQLite",
  embedded(() => openSqliteStore(":memory:")),
);
