import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { rankBm25 } from "../bm25.js";
import { searchableText } from "../searchable-text.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { copy } from "./rows.js";

/** The in-memory store's searches: BM25 over one agent's rows, as SQLite's FTS5 ranks them. */

export function searchMessages(
  messages: readonly AgentMessage[],
  query: string,
  options: MessageSearch,
): MessageHit[] {
  const hits = messages.flatMap((message): MessageHit[] => {
    const found = searchableText(message);
    if (!found || (options.roles && !options.roles.includes(found.role))) return [];
    if (options.excludeRunId !== undefined && message.run_id === options.excludeRunId) return [];
    return [{ id: message.id, ...found, created_at_ms: Date.parse(message.date) }];
  });
  const limit = Math.max(0, Math.floor(options.limit));
  const texts = hits.map((hit) => hit.text);
  return rankBm25(query, texts, limit).map((i) => ({ ...(hits[i] as MessageHit) }));
}

export function searchPassages(
  passages: readonly Passage[],
  query: string,
  options: PassageSearch,
): Passage[] {
  const { tags, anyTags, fromMs, toMs } = options;
  const pool = passages.filter(
    (passage) =>
      (!tags || tags.every((tag) => passage.tags.includes(tag))) &&
      (!anyTags || passage.tags.some((tag) => anyTags.includes(tag))) &&
      (fromMs === undefined || passage.created_at_ms >= fromMs) &&
      (toMs === undefined || passage.created_at_ms <= toMs),
  );
  const limit = Math.max(0, Math.floor(options.topK));
  const texts = pool.map((passage) => passage.text);
  return rankBm25(query, texts, limit).map((i) => copy(pool[i] as Passage));
}
