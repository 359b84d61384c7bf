import type { MemorySearch } from "../memory/agent-memory.js";
import { estimateTokens } from "./context-window.js";

/** How many passages and past messages recall looks at before filling its budget. */
const RECALL_CANDIDATES = 8;

/**
 * What a `learning` agent recalls before a turn: the archival passages and past messages most
 * relevant to what the turn starts with (full-text ranked, passages first), as many as fit in
 * `budgetTokens`. The turn's own messages are left out: they are in context already. Null when
 * nothing relevant is found or the budget is zero.
 */
export async function recallFor(
  search: MemorySearch,
  query: string,
  budgetTokens: number,
  runId: string,
): Promise<string | null> {
  if (budgetTokens <= 0 || query.trim() === "") return null;
  const [passages, messages] = await Promise.all([
    search.searchPassages(query, { topK: RECALL_CANDIDATES }),
    search.searchMessages(query, {
      limit: RECALL_CANDIDATES,
      roles: ["user", "assistant"],
      excludeRunId: runId,
    }),
  ]);
  const lines = [
    ...passages.map((p) => `- [archival, ${new Date(p.created_at_ms).toISOString()}] ${p.text}`),
    ...messages.map(
      (m) => `- [${m.role} said, ${new Date(m.created_at_ms).toISOString()}] ${m.text}`,
    ),
  ];
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = estimateTokens(line);
    if (used + cost > budgetTokens) continue;
    kept.push(line);
    used += cost;
  }
  return kept.length > 0 ? kept.join("\n") : null;
}
