import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { builtinConfig } from "../../config/config-file.js";
import { productionIds } from "../../core/ids.js";
import { seededRandom } from "../../core/random.js";
import type { EmbeddingModel } from "../../llm/embedding-model.js";
import { withHybridSearch } from "../../memory/hybrid-search.js";
import type { Passage } from "../../records/memory-records.js";
import { newAgent } from "../../runtime/new-agent.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";

/** A common size of local embedding models (all-MiniLM, bge-small); OpenAI's small is 1536. */
export const BENCH_DIMENSIONS = 384;
const MODEL = "openai-compatible/bench";
const SAMPLES = 20;
const TOPICS = ["disk", "network", "memory", "latency", "queue", "cache", "deploy", "auth"];

/**
 * Archival search on one agent holding 10k and 100k passages, every one embedded (384
 * dimensions, seeded random vectors): vector search alone (exact cosine by sqlite-vec over the
 * agent's vectors) and hybrid search (BM25 + vectors, fused), with the query's vector ready (the
 * embedding request is the provider's time, not the store's). Reported as searches per second
 * (the mean over repeated calls after a warm-up) and the passages compared per second.
 */
export async function vectorSearch(sizes: readonly number[] = [10_000, 100_000]) {
  const rows = [];
  for (const size of sizes) rows.push({ passages: size, ...(await measureAt(size)) });
  return rows;
}

async function measureAt(size: number) {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-vector-bench-"));
  const store = await openSqliteStore(join(dir, "bench.db"), { durability: "normal" });
  const random = seededRandom(size);
  const vector = () => {
    const made = new Float32Array(BENCH_DIMENSIONS);
    for (let i = 0; i < made.length; i++) made[i] = random.next() * 2 - 1;
    return made;
  };
  try {
    const type = builtinConfig().registry.get("memgpt_agent");
    if (!type) throw new Error("memgpt_agent missing");
    const created = newAgent({ name: "bench", type }, productionIds, Date.now());
    await store.createAgent(created);
    const agentId = created.agent.id;
    for (let from = 0; from < size; from += 1_000) {
      const passages: Passage[] = [];
      for (let i = from; i < Math.min(size, from + 1_000); i++) {
        const topic = TOPICS[i % TOPICS.length] ?? "";
        passages.push({
          id: `p-${i}`,
          text: `note item${i} about the ${topic} of service ${i % 97}`,
          tags: [topic],
          created_at_ms: i,
        });
      }
      await store.insertPassages(agentId, passages);
      const vectors = passages.map((p) => ({ id: p.id, vector: vector() }));
      await store.vectors.putVectors(agentId, "passage", MODEL, vectors);
    }
    const query = vector();
    const ready: EmbeddingModel = { handle: MODEL, maxBatch: 1, embed: async () => [query] };
    const hybrid = withHybridSearch(store, {
      embeddingFor: async () => ready,
      written: () => {},
    });
    const vectorPerSecond = await perSecond(() =>
      store.vectors.nearestPassages(agentId, MODEL, query, { topK: 10 }),
    );
    const hybridPerSecond = await perSecond(() =>
      hybrid.searchPassages(agentId, "latency service", { topK: 10 }),
    );
    return {
      dimensions: BENCH_DIMENSIONS,
      vectorSearchesPerSecond: vectorPerSecond,
      hybridSearchesPerSecond: hybridPerSecond,
      passagesComparedPerSecond: Math.round(vectorPerSecond * size),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function perSecond(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await call();
  const start = performance.now();
  for (let i = 0; i < SAMPLES; i++) await call();
  return Math.round((SAMPLES * 1000 * 10) / (performance.now() - start)) / 10;
}
