import type { AgentMessage } from "../records/messages.js";

/**
 * The newest messages of an agent, kept in memory by its activation so that a model call
 * does not read and re-validate history from the store. It holds at most `capacity` messages;
 * the runner appends each step's messages once they are committed.
 */
export class HistoryWindow {
  #messages: AgentMessage[];

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

  append(messages: readonly AgentMessage[]): void {
    if (messages.length === 0) return;
    this.#messages.push(...messages);
    // Trim in batches, not per message, so that appends stay cheap.
    if (this.#messages.length > this.capacity * 2)
      this.#messages = this.#messages.slice(-this.capacity);
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
