import type { MemoryVersion } from "../records/memory-history.js";
import type { CoreBlock, Passage } from "../records/memory-records.js";

/** An agent's memory as of a past point, or why it cannot be rebuilt faithfully. */
export type MemoryAt =
  | { ok: true; blocks: CoreBlock[]; passages: Passage[] }
  | { ok: false; reason: string };

/**
 * Rebuilds core blocks and archival passages as they were at `position` (see
 * `records/memory-history.ts`) from the agent's memory history and its passages now. Blocks
 * replay their writes and deletions up to the point; a passage counts if it was added by then
 * and not yet deleted (a passage deleted since is restored from its deletion's record). An
 * agent whose history begins after the point (stored before Holdfast kept it) cannot be rebuilt.
 */
export function memoryAt(
  history: readonly MemoryVersion[],
  passagesNow: readonly Passage[],
  position: number,
): MemoryAt {
  const baseline = history.find((version) => version.change.kind === "baseline");
  if (baseline && baseline.position > position) {
    return {
      ok: false,
      reason:
        "this agent's memory history begins after that point (the agent is older than its " +
        "memory history), so its memory there cannot be rebuilt; choose a later point",
    };
  }
  const blocks = new Map<string, CoreBlock>();
  const added = new Set<string>();
  const addedLater = new Set<string>();
  const deleted = new Map<string, { passage: Passage; position: number }>();
  for (const { position: at, change } of history) {
    const now = at <= position;
    if (change.kind === "block" && now) blocks.set(change.block.label, change.block);
    if (change.kind === "block_deleted" && now) blocks.delete(change.label);
    if (change.kind === "passage") (now ? added : addedLater).add(change.id);
    if (change.kind === "passage_deleted") {
      deleted.set(change.passage.id, { passage: change.passage, position: at });
    }
  }
  // Passages with no record of their adding are older than the history: there by the baseline.
  const wasThere = (id: string) => added.has(id) || (baseline !== undefined && !addedLater.has(id));
  const passages = passagesNow.filter((passage) => wasThere(passage.id));
  for (const [id, { passage, position: at }] of deleted) {
    if (at > position && wasThere(id)) passages.push(passage);
  }
  passages.sort((a, b) => a.created_at_ms - b.created_at_ms);
  return { ok: true, blocks: [...blocks.values()], passages };
}
