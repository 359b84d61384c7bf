import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import { productionIds } from "../../core/ids.js";
import type { Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { newSessionState } from "../../records/session-state.js";
import { newAgent } from "../../runtime/new-agent.js";
import type { Store } from "../../storage/store.js";
import { percentile } from "./measure.js";
import { withStore } from "./scenarios.js";

const TOPICS = ["disk", "network", "memory", "latency", "queue", "cache", "deploy", "auth"];
const SAMPLES = 200;
/** Passages per agent: a store grows by its number of agents, as a deployment does. */
const PER_AGENT = 100;

/**
 * The API's memory reads on a store holding 1k, 10k and 100k passages, spread over agents of
 * 100 passages each (10 to 1,000 agents in one project). One agent in the middle is read: a
 * page of its list, a page filtered by words, a full-text search that finds two of its passages
 * (whose words every other agent's passages hold too), one whose words are in every passage
 * (with tag and time filters), a block by id among the project's agents, and a conversation
 * search over as many messages of the agent as it has passages. Each is the p50 of
 * repeated calls, after a warm-up; none should grow with the other agents' passages. Then
 * (`oneAgent`) the same store sizes held by one agent alone: a rare word's search, and a
 * common word's (in every passage and message), whose ranking the stores bound.
 *
 * On SQLite (durability normal), or on PostgreSQL at `pgUrl`.
 */
export async function memoryQueries(
  sizes: readonly number[] = [1_000, 10_000, 100_000],
  pgUrl?: string,
) {
  const on = <T>(fn: (store: Store) => Promise<T>) =>
    withStore(fn, { durability: "normal", pgUrl });
  // A first round, thrown away, so the smallest store is not measured on cold (unoptimised) code.
  await on((store) => measureAt(store, Math.min(...sizes)));
  const rows = [];
  for (const size of sizes) rows.push({ passages: size, ...(await on((s) => measureAt(s, size))) });
  const oneAgent = [];
  for (const size of sizes) oneAgent.push({ passages: size, ...(await on((s) => alone(s, size))) });
  return { rows, oneAgent };
}

/** One agent holding `size` passages and as many messages: rare and common words' searches. */
async function alone(store: Store, size: number) {
  const type = builtinConfig().registry.get("memgpt_agent");
  if (!type) throw new Error("memgpt_agent missing");
  const created = newAgent({ name: "alone", type }, productionIds, Date.now());
  await store.createAgent(created);
  const agentId = created.agent.id;
  for (let from = 0; from < size; from += 1_000) {
    const passages = passagesOf(0, from, Math.min(1_000, size - from));
    await store.insertPassages(agentId, passages);
    await store.commit({
      agentId,
      state: newSessionState("s-alone"),
      messages: messagesOf(passages, from),
      memory: { blocks: [], passages: [] },
    });
  }
  return {
    searchRareP50Ms: await p50(() => store.searchPassages(agentId, "item42 item77", { topK: 10 })),
    searchCommonP50Ms: await p50(() =>
      store.searchPassages(agentId, "latency service", { topK: 10 }),
    ),
    searchMessagesCommonP50Ms: await p50(() =>
      store.searchMessages(agentId, "latency service", { limit: 10 }),
    ),
  };
}

async function measureAt(store: Store, size: number) {
  const type = builtinConfig().registry.get("memgpt_agent");
  if (!type) throw new Error("memgpt_agent missing");
  const agents = [];
  for (let a = 0; a < Math.max(1, size / PER_AGENT); a++) {
    const created = newAgent({ name: `a${a}`, type }, productionIds, Date.now());
    await store.createAgent(created);
    agents.push(created);
    const passages = passagesOf(a);
    await store.insertPassages(created.agent.id, passages);
    const messages = messagesOf(passages);
    await store.commit({
      agentId: created.agent.id,
      state: newSessionState(`s-${a}`),
      messages,
      memory: { blocks: [], passages: [] },
    });
  }
  const agentId = agents[Math.floor(agents.length / 2)]?.agent.id ?? "";
  const lastBlock = agents.at(-1)?.blocks[0]?.id ?? "";
  const page = { limit: 50, order: "desc" as const };
  return {
    agents: agents.length,
    listPageP50Ms: await p50(() => store.listPassages(agentId, page)),
    listByWordsP50Ms: await p50(() => store.listPassages(agentId, page, { containing: ["disk"] })),
    // Two of the agent's passages match, and two of every other agent's.
    searchRareP50Ms: await p50(() => store.searchPassages(agentId, "item42 item77", { topK: 10 })),
    // Every passage of every agent holds `service`: BM25 ranks all of this agent's.
    searchFilteredP50Ms: await p50(() =>
      store.searchPassages(agentId, "latency service", {
        topK: 10,
        anyTags: ["latency", "cache"],
        fromMs: PER_AGENT / 2,
      }),
    ),
    blockByIdP50Ms: await p50(() => store.blocks.get("default", lastBlock)),
    // Conversation search: the same words in the agent's messages (one per passage).
    searchMessagesP50Ms: await p50(() =>
      store.searchMessages(agentId, "latency service", { limit: 10 }),
    ),
  };
}

function passagesOf(agent: number, from = 0, count = PER_AGENT): Passage[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const topic = TOPICS[i % TOPICS.length] ?? "";
    return {
      id: `p-${agent}-${i}`,
      text: `note item${i} about the ${topic} of service ${(agent + i) % 97}`,
      tags: [topic],
      created_at_ms: i,
    };
  });
}

function messagesOf(passages: readonly Passage[], from = 0): AgentMessage[] {
  return passages.map((passage, k) => ({
    id: `m${passage.id.slice(1)}`,
    date: new Date(from + k).toISOString(),
    run_id: null,
    step_id: null,
    otid: null,
    message_type: "user_message",
    content: passage.text,
  }));
}

async function p50(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < SAMPLES / 4; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
}
