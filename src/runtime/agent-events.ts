import type { LoopEvent } from "../agent/events.js";

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

/**
 * Per-agent event subscriptions. Publishing to an agent nobody listens to costs one map
 * lookup, so turns without a stream pay nothing for it. A listener that throws is dropped:
 * one broken stream must not break the turn that feeds it.
 */
export class AgentEvents {
  readonly #listeners = new Map<string, Set<AgentEventListener>>();

  subscribe(agentId: string, listener: AgentEventListener): () => void {
    let set = this.#listeners.get(agentId);
    if (!set) {
      set = new Set();
      this.#listeners.set(agentId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(agentId) === set) this.#listeners.delete(agentId);
    };
  }

  /** Whether anyone follows the agent now. */
  listening(agentId: string): boolean {
    return this.#listeners.has(agentId);
  }

  publish(event: AgentEvent): void {
    const set = this.#listeners.get(event.agentId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        set.delete(listener);
      }
    }
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
