import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinConfig } from "../../config/config-file.js";
import type { Passage } from "../../records/memory-records.js";
import { openSqliteStore } from "../../storage/sqlite/sqlite-store.js";
import type { AgentType } from "../../types/agent-type.js";
import { benchRuntime } from "./bench-setup.js";
import { byOwnTime, type Timings, timed } from "./measure.js";

const TOPICS = ["harbour", "lantern", "orchard", "glacier", "violin", "compass", "meadow", "ember"];

/** The bench's turn shape (one lookup, then an answer) on a type of the given memory depth. */
function benchTypeOf(depth: "persistent" | "learning"): AgentType {
  const letta = builtinConfig().registry.get("letta_v1_agent");
  if (!letta) throw new Error("letta_v1_agent missing");
  return {
    ...letta,
    name: `bench-${depth}`,
    description: `benchmark: one lookup, then an answer, ${depth} memory`,
    tools: { ...letta.tools, packs: [], include: ["lookup"] },
    memory: { ...letta.memory, blocks: [], depth, archival: true },
  };
}

function passages(agent: string, n: number): Passage[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `passage-${agent}-${i}`,
    text: `note ${i}: the ${TOPICS[i % TOPICS.length]} was mentioned on day ${i % 97}`,
    tags: [],
    created_at_ms: 1_700_000_000_000 + i,
  }));
}

/**
 * What `learning` recall costs a turn: two agents with the same archival memory (`passages`)
 * and a growing history, one `persistent`, one `learning` (archival passages and past messages
 * matching the user's message are searched and put in the context before each turn). Their
 * turns alternate, so both see the same machine; each side's rate is over its own time.
 */
export async function recallCost(
  turns: number,
  passageCount: number,
): Promise<{ passages: number; plain: Timings; learning: Timings; recallOverheadP50Ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-bench-recall-"));
  const store = await openSqliteStore(join(dir, "bench.db"));
  try {
    const types = [benchTypeOf("persistent"), benchTypeOf("learning")];
    const { runtime, createAgents } = benchRuntime(store, { types });
    const [plain = ""] = await createAgents(1, "bench-persistent");
    const [learning = ""] = await createAgents(1, "bench-learning");
    for (const agent of [plain, learning]) {
      await store.insertPassages(agent, passages(agent, passageCount));
    }
    const plainMs: number[] = [];
    const learningMs: number[] = [];
    for (let i = 0; i < turns; i += 1) {
      const content = `what about the ${TOPICS[i % TOPICS.length]} on day ${i % 97}?`;
      plainMs.push(await timed(() => runtime.send(plain, { content })));
      learningMs.push(await timed(() => runtime.send(learning, { content })));
    }
    await runtime.shutdown();
    const result = { plain: byOwnTime(plainMs), learning: byOwnTime(learningMs) };
    const recallOverheadP50Ms = result.learning.p50Ms - result.plain.p50Ms;
    return { passages: passageCount, ...result, recallOverheadP50Ms };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
