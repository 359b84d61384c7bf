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
