import { builtinConfig } from "../src/config/config-file.js";
import { systemClock } from "../src/core/clock.js";
import { productionIds } from "../src/core/ids.js";
import { engineContract } from "../src/runtime/engine.contract.js";
import { newAgent } from "../src/runtime/new-agent.js";
import { useRestateCluster } from "./support/restate.js";

const cluster = useRestateCluster();
const config = builtinConfig();

engineContract("the Restate engine (restate-server, a worker, PostgreSQL)", async (script) => {
  const { engine, store, setScript } = cluster();
  setScript(script);
  const create = async (typeName: string) => {
    const type = config.registry.get(typeName);
    if (!type) throw new Error(`no type ${typeName}`);
    const created = newAgent({ name: typeName, type }, productionIds, systemClock.now());
    await store.createAgent(created);
    return created.agent.id;
  };
  return { engine, store, create };
});
