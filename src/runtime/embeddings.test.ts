import { describe, expect, it } from "vitest";
import { builtinConfig } from "../config/config-file.js";
import { sequentialIds } from "../core/ids.js";
import { ManualClock } from "../core/manual-clock.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";
import { EMBEDDING_HANDLE_TTL_MS, wireEmbeddings } from "./embeddings.js";
import { newAgent } from "./new-agent.js";

const SMALL = "openai/text-embedding-3-small";
const LARGE = "openai/text-embedding-3-large";

/** A store that counts reads of agent records. */
function countingStore(): { store: Store; reads: () => number } {
  const store = createInMemoryStore();
  let reads = 0;
  const getAgent = store.getAgent.bind(store);
  store.getAgent = (id) => {
    reads += 1;
    return getAgent(id);
  };
  return { store, reads: () => reads };
}

async function world() {
  const config = builtinConfig();
  const { store, reads } = countingStore();
  const type = config.registry.get("memgpt_agent");
  if (!type) throw new Error("memgpt_agent missing");
  const created = newAgent(
    { name: "a", type, overrides: { memory: { embedding: SMALL } } },
    sequentialIds(),
    0,
  );
  await store.createAgent(created);
  const clock = new ManualClock();
  const embeddings = wireEmbeddings({ store, config, env: {}, clock });
  const setModelBehindItsBack = (embedding: string) =>
    store.updateAgent({ ...created.agent, overrides: { memory: { embedding } } });
  return { embeddings, clock, reads, agentId: created.agent.id, setModelBehindItsBack };
}

describe("an agent's embedding model, as commits and searches ask for it", () => {
  it("is read from the store once a second at most, however often it is asked for", async () => {
    const { embeddings, clock, reads, agentId } = await world();
    for (let i = 0; i < 50; i += 1) expect(await embeddings.handleFor(agentId)).toBe(SMALL);
    expect(reads()).toBe(1);
    clock.advance(EMBEDDING_HANDLE_TTL_MS);
    await embeddings.handleFor(agentId);
    expect(reads()).toBe(2);
  });

  it("changed by another process sharing the store, is seen within a second", async () => {
    const { embeddings, clock, agentId, setModelBehindItsBack } = await world();
    await embeddings.handleFor(agentId);
    await setModelBehindItsBack(LARGE);
    clock.advance(EMBEDDING_HANDLE_TTL_MS);
    expect(await embeddings.handleFor(agentId)).toBe(LARGE);
  });

  it("changed here while a read of the old one is on its way, is not forgotten", async () => {
    const { embeddings, agentId, setModelBehindItsBack } = await world();
    const reading = embeddings.handleFor(agentId);
    await setModelBehindItsBack(LARGE);
    embeddings.modelChanged(agentId);
    await reading;
    expect(await embeddings.handleFor(agentId)).toBe(LARGE);
    await embeddings.queue.stop();
  });

  it("changed in this process, is seen at once", async () => {
    const { embeddings, agentId, setModelBehindItsBack } = await world();
    await embeddings.handleFor(agentId);
    await setModelBehindItsBack(LARGE);
    embeddings.modelChanged(agentId);
    expect(await embeddings.handleFor(agentId)).toBe(LARGE);
    await embeddings.queue.stop();
  });
});
