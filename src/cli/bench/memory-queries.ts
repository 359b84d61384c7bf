import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import { randomIds } from "../../core/ids.js";
import type { Passage } from "../../records/memory-records.js";
import { newAgent } from "../../runtime/new-agent.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import { percentile } from "./measure.js";

const TOPICS = ["disk", "network", "memory", "latency", "queue", "cache", "deploy", "auth"];
const SAMPLES = 200;

/**
 * The API's memory reads at 1k, 10k and 100k passages per agent: a page of the list, a page
 * filtered by words, a full-text search that finds two passages, one whose words are in every
 * passage (with tag and time filters), and a block by id among the project's agents. Each is
 * the p50 of repeated calls on SQLite, after a warm-up.
 */
export async function memoryQueries(sizes: readonly number[] = [1_000, 10_000, 100_000]) {
  const rows = [];
  for (const size of sizes) rows.push({ passages: size, ...(await measureAt(size)) });
  return rows;
}

async function measureAt(size: number) {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"));
  try {
    const type = builtinConfig().registry.get("memgpt_agent");
    if (!type) throw new Error("memgpt_agent missing");
    // A few hundred agents in the project, so a block lookup has somewhere to look.
    const agents = [];
    for (let i = 0; i < 300; i++) {
      const created = newAgent({ name: `a${i}`, type }, randomIds, Date.now());
      await store.createAgent(created);
      agents.push(created);
    }
    const agentId = agents[0]?.agent.id ?? "";
    const lastBlock = agents.at(-1)?.blocks[0]?.id ?? "";
    for (let start = 0; start < size; start += 1_000) {
      const batch: Passage[] = [];
      for (let i = start; i < Math.min(size, start + 1_000); i++) {
        const topic = TOPICS[i % TOPICS.length] ?? "";
        batch.push({
          id: `p-${i}`,
          text: `note id${i} about the ${topic} of service ${i % 97}`,
          tags: [topic],
          created_at_ms: i,
        });
      }
      await store.insertPassages(agentId, batch);
    }
    const page = { limit: 50, order: "desc" as const };
    return {
      listPageP50Ms: await p50(() => store.listPassages(agentId, page)),
      listByWordsP50Ms: await p50(() =>
        store.listPassages(agentId, page, { containing: ["disk"] }),
      ),
      // Two passages match: the cost of a search that finds what it looks for.
      searchRareP50Ms: await p50(() => store.searchPassages(agentId, "id42 id777", { topK: 10 })),
      // Every passage matches `service`: BM25 ranks them all, so this grows with the store.
      searchFilteredP50Ms: await p50(() =>
        store.searchPassages(agentId, "latency service", {
          topK: 10,
          anyTags: ["latency", "cache"],
          fromMs: size / 2,
        }),
      ),
      blockByIdP50Ms: await p50(() => store.findBlock("default", lastBlock)),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
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
