import type { MessageHit } from "../../records/memory-records.js";

/** One conversation search result as the model reads it, in Letta's shape. */
interface ConversationResult {
  timestamp: string;
  time_ago: string;
  role: MessageHit["role"];
  content: string;
}

/**
 * The output of `conversation_search`, as Letta's tool gives it: a line saying how many results
 * there are, then each message's time, how long ago that was, its role and what was said.
 */
export function conversationResults(hits: readonly MessageHit[], nowMs: number): string {
  if (hits.length === 0) return JSON.stringify({ message: "No results found.", results: [] });
  const results: ConversationResult[] = hits.map((hit) => ({
    timestamp: new Date(hit.created_at_ms).toISOString(),
    time_ago: timeAgo(nowMs - hit.created_at_ms),
    role: hit.role,
    content: hit.text,
  }));
  return JSON.stringify({ message: `Showing ${hits.length} results:`, results });
}

/** "42s ago", "5m ago", "3h ago", "2d ago", as Letta writes it. */
export function timeAgo(elapsedMs: number): string {
  const seconds = Math.max(0, Math.floor(elapsedMs / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}
