import { reciprocalRankFusion } from "../../memory/fusion.js";
import type { ChunkHit, FolderStore } from "../../storage/folder-store.js";
import { failure, success, type ToolResult } from "../tool.js";

const MAX_RESULTS = 50;
const LINES_PER_PASSAGE = 20;

/** The chunks of these folders nearest to a query by meaning; null when none can say. */
export type NearestChunks = (
  folderIds: readonly string[],
  query: string,
  limit: number,
) => Promise<ChunkHit[] | null>;

/**
 * Letta's `semantic_search_files`, answered by the passages of the agent's attached folders:
 * ranked by full text (BM25) and, for folders with an embedding model, by vector too, the two
 * fused by reciprocal rank; grouped by file in Letta's format.
 */
export async function semanticSearchFiles(
  folders: FolderStore,
  agentId: string,
  query: string,
  limit: number,
  nowMs: number,
  nearest?: NearestChunks,
): Promise<ToolResult> {
  const wanted = query.trim();
  if (wanted === "") return failure("Empty search query provided");
  const folderIds = await folders.agentFolders(agentId);
  const rows = await folders.agentFiles(agentId);
  if (rows.length === 0) return success("No files are currently attached to search");
  const names = new Map(rows.map((row) => [row.file_id, row]));
  const top = Math.min(limit, MAX_RESULTS);
  const pool = Math.max(20, top * 3);
  const [byText, byMeaning] = await Promise.all([
    folders.searchChunks(folderIds, wanted, pool),
    nearest ? nearest(folderIds, wanted, pool) : null,
  ]);
  const ranked = byMeaning
    ? reciprocalRankFusion([byText, byMeaning], (hit) => hit.id, top)
    : byText.slice(0, top);
  const hits = ranked.filter((hit) => names.has(hit.file_id));
  if (hits.length === 0) return success(`No semantic matches found for query: '${wanted}'`);
  const byFile = new Map<string, string[]>();
  for (const hit of hits) {
    const name = names.get(hit.file_id)?.file_name ?? "Unknown File";
    byFile.set(name, [...(byFile.get(name) ?? []), hit.text]);
  }
  let n = 0;
  const passages = [...byFile].flatMap(([name, texts]) =>
    texts.map((text) => {
      n += 1;
      const lines = text.trim().split("\n");
      const shown = lines.slice(0, LINES_PER_PASSAGE).map((line) => `  ${line}`);
      if (lines.length > LINES_PER_PASSAGE) {
        shown.push(`  ... [truncated ${lines.length - LINES_PER_PASSAGE} more lines]`);
      }
      return `\n=== ${name} (passage #${n}) ===\n${shown.join("\n")}`;
    }),
  );
  const touched = rows.filter((row) => byFile.has(row.file_name));
  await folders.putAgentFiles(
    agentId,
    touched.map((row) => ({ ...row, last_accessed_ms: nowMs })),
  );
  const files = byFile.size;
  const summary = `Found ${hits.length} semantic matches in ${files} file${files === 1 ? "" : "s"} for query: '${wanted}'`;
  return success([summary, "=".repeat(summary.length), ...passages].join("\n"));
}
