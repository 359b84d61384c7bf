import type { AgentMessage } from "../records/messages.js";

/**
 * The newest messages of an agent, kept in memory by its activation so that a model call
 * does not read and re-validate history from the store. It holds at most `capacity` messages;
 * the runner appends each step's messages once they are committed.
 */
export class HistoryWindow {
  #messages: AgentMessage[];
  /** Messages trimmed off the front since the window was loaded: positions stay comparable. */
  #dropped = 0;

  constructor(
    messages: readonly AgentMessage[],
    private readonly capacity: number,
  ) {
    this.#messages = messages.slice(-capacity);
  }

  /** The newest `limit` messages, oldest first. */
  recent(limit: number): AgentMessage[] {
    return limit <= 0 ? [] : this.#messages.slice(-limit);
  }

  /**
   * The history a model call sees: at most `limit` messages, but starting at a page boundary
   * (pages of a quarter of `limit`) rather than exactly `limit` back. A window that slid by one
   * message each call would change the start of every request, and no provider could serve
   * any of the history from its prompt cache; this one moves once per page, and between moves
   * each request holds the previous one whole as its prefix. It never opens with a tool return
   * whose call it left out, which providers refuse.
   */
  promptWindow(limit: number): AgentMessage[] {
    if (limit <= 0) return [];
    const total = this.#dropped + this.#messages.length;
    if (total <= limit) return [...this.#messages];
    const page = Math.max(1, Math.floor(limit / 4));
    let start = Math.max(0, Math.ceil((total - limit) / page) * page - this.#dropped);
    while (this.#messages[start]?.message_type === "tool_return_message") start += 1;
    return this.#messages.slice(start);
  }

  /** Appends the default conversation's messages; another conversation's are read from the store. */
  append(messages: readonly AgentMessage[]): void {
    const own = messages.filter((message) => message.conversation_id == null);
    if (own.length === 0) return;
    this.#messages.push(...own);
    // Trim in batches, not per message, so that appends stay cheap.
    if (this.#messages.length > this.capacity * 2) {
      this.#dropped += this.#messages.length - this.capacity;
      this.#messages = this.#messages.slice(-this.capacity);
    }
  }
}

/**
 * The messages after `markerId`, the newest message when the context was reset. A window that
 * does not hold the marker is all newer than it (a window is the newest messages), so it is
 * kept whole.
 */
export function afterReset(
  messages: readonly AgentMessage[],
  markerId: string | undefined,
): AgentMessage[] {
  if (markerId === undefined) return [...messages];
  const at = messages.findIndex((message) => message.id === markerId);
  return at === -1 ? [...messages] : messages.slice(at + 1);
}
