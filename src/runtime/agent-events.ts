import type { LoopEvent } from "../agent/events.js";
import { KeyedListeners } from "../core/keyed-listeners.js";

/**
 * What an engine reports about an agent as it happens: its loop's events, each with the run
 * it belongs to. `from` names the sub-agent an event comes from when a parent relays it (an
 * approval its child waits for).
 */
export type AgentEvent = LoopEvent & {
  readonly agentId: string;
  readonly runId: string | null;
  readonly from?: string;
};

export type AgentEventListener = (event: AgentEvent) => void;

/** Per-agent event subscriptions (see KeyedListeners), and waiting for a run's stop. */
export class AgentEvents {
  readonly #listeners = new KeyedListeners<AgentEvent>();

  subscribe(agentId: string, listener: AgentEventListener): () => void {
    return this.#listeners.subscribe(agentId, listener);
  }

  /** Whether anyone follows the agent now. */
  listening(agentId: string): boolean {
    return this.#listeners.listening(agentId);
  }

  publish(event: AgentEvent): void {
    this.#listeners.publish(event.agentId, event);
  }

  /** Resolves with the run's `stop` event: when the run ended, or stopped for an approval. */
  nextStop(
    agentId: string,
    runId: string,
    signal?: AbortSignal,
  ): Promise<Extract<AgentEvent, { type: "stop" }> | null> {
    return new Promise((resolve) => {
      const unsubscribe = this.subscribe(agentId, (event) => {
        if (event.type !== "stop" || event.runId !== runId) return;
        unsubscribe();
        resolve(event);
      });
      // An abandoned wait lets go of its listener.
      signal?.addEventListener("abort", () => {
        unsubscribe();
        resolve(null);
      });
    });
  }
}

/**
 * A turn's event callback that publishes to `events` under the agent and its run. A new turn's
 * first event is its input message, which names the new run; later events belong to it.
 */
export function publisherFor(
  events: AgentEvents,
  agentId: string,
  runId: string | null,
): (event: LoopEvent) => void {
  let current = runId;
  return (event) => {
    if (event.type === "message" && event.message.run_id) current = event.message.run_id;
    // Most turns have no audience: they pay for no event objects.
    if (events.listening(agentId)) events.publish({ ...event, agentId, runId: current });
  };
}
