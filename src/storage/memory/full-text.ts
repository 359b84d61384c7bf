import type { MessageHit, Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { rankBm25, SEARCH_CANDIDATES } from "../bm25.js";
import { searchableText } from "../searchable-text.js";
import type { MessageSearch, PassageSearch } from "../turn-store.js";
import { copy } from "./rows.js";

/** The in-memory store's searches: BM25 over one agent's rows, as SQLite's FTS5 ranks them. */

/** Messages conversation search can find, as hits, optionally of some roles only. */
export function messageHits(
  messages: readonly AgentMessage[],
  roles?: readonly string[],
): { message: AgentMessage; hit: MessageHit }[] {
  return messages.flatMap((message) => {
    const found = searchableText(message);
    if (!found || (roles && !roles.includes(found.role))) return [];
    return [
      { message, hit: { id: message.id, ...found, created_at_ms: Date.parse(message.date) } },
    ];
  });
}

/** Whether a passage passes a search's tag and time filters. */
export function passesFilters(passage: Passage, options: PassageSearch): boolean {
  const { tags, anyTags, fromMs, toMs } = options;
  return (
    (!tags || tags.every((tag) => passage.tags.includes(tag))) &&
    (!anyTags || passage.tags.some((tag) => anyTags.includes(tag))) &&
    (fromMs === undefined || passage.created_at_ms >= fromMs) &&
    (toMs === undefined || passage.created_at_ms <= toMs)
  );
}

export function searchMessages(
  messages: readonly AgentMessage[],
  query: string,
  options: MessageSearch,
): MessageHit[] {
  const excluded = options.excludeRunId;
  const hits = messageHits(messages, options.roles)
    .filter(({ message }) => excluded === undefined || message.run_id !== excluded)
    .map(({ hit }) => hit);
  const limit = Math.max(0, Math.floor(options.limit));
  const texts = hits.map((hit) => hit.text);
  return rankBm25(query, texts, limit, SEARCH_CANDIDATES).map((i) => ({
    ...(hits[i] as MessageHit),
  }));
}

export function searchPassages<P extends Passage>(
  passages: readonly P[],
  query: string,
  options: PassageSearch,
): P[] {
  const pool = passages.filter((passage) => passesFilters(passage, options));
  const limit = Math.max(0, Math.floor(options.topK));
  const texts = pool.map((passage) => passage.text);
  return rankBm25(query, texts, limit, SEARCH_CANDIDATES).map((i) => copy(pool[i] as P));
}
