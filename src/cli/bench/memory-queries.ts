import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import { randomIds } from "../../core/ids.js";
import type { Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { newSessionState } from "../../records/session-state.js";
import { newAgent } from "../../runtime/new-agent.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import { percentile } from "./measure.js";

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
 * repeated calls on SQLite, after a warm-up; none should grow with the other agents' passages.
 */
export async function memoryQueries(sizes: readonly number[] = [1_000, 10_000, 100_000]) {
  // A first round, thrown away, so the smallest store is not measured on cold (unoptimised) code.
  await measureAt(Math.min(...sizes));
  const rows = [];
  for (const size of sizes) rows.push({ passages: size, ...(await measureAt(size)) });
  return rows;
}

async function measureAt(size: number) {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"), { durability: "normal" });
  try {
    const type = builtinConfig().registry.get("memgpt_agent");
    if (!type) throw new Error("memgpt_agent missing");
    const agents = [];
    for (let a = 0; a < Math.max(1, size / PER_AGENT); a++) {
      const created = newAgent({ name: `a${a}`, type }, randomIds, Date.now());
      await store.createAgent(created);
      agents.push(created);
      await store.insertPassages(created.agent.id, passagesOf(a));
      const messages = messagesOf(a);
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
      listByWordsP50Ms: await p50(() =>
        store.listPassages(agentId, page, { containing: ["disk"] }),
      ),
      // Two of the agent's passages match, and two of every other agent's.
      searchRareP50Ms: await p50(() =>
        store.searchPassages(agentId, "item42 item77", { topK: 10 }),
      ),
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
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function passagesOf(agent: number): Passage[] {
  return Array.from({ length: PER_AGENT }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length] ?? "";
    return {
      id: `p-${agent}-${i}`,
      text: `note item${i} about the ${topic} of service ${(agent + i) % 97}`,
      tags: [topic],
      created_at_ms: i,
    };
  });
}

function messagesOf(agent: number): AgentMessage[] {
  return passagesOf(agent).map((passage, i) => ({
    id: `m-${agent}-${i}`,
    date: new Date(i).toISOString(),
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
