import type {
  ChainAgentRun,
  ChainApproval,
  ChainRunRecord,
  ChainScore,
  StepStatus,
} from "../records/chain-run.js";
import type { AgentEvent } from "../runtime/agent-events.js";

/** What a chain run reports as it happens; each change also lands in its stored record. */
export type ChainEvent =
  | {
      type: "run";
      runId: string;
      status: ChainRunRecord["status"];
      score: ChainScore | null;
      error: ChainRunRecord["error"];
      pendingApprovals: ChainApproval[];
    }
  | {
      type: "stage";
      runId: string;
      stage: string;
      status: StepStatus;
      output: string | null;
      error: string | null;
    }
  | { type: "agent"; runId: string; stage: string; agent: ChainAgentRun }
  /** An event of a stage agent's own run (its messages, deltas, stop). */
  | { type: "agent_event"; runId: string; stage: string; agentName: string; event: AgentEvent };

export type ChainEventListener = (event: ChainEvent) => void;

/** Subscriptions per chain run. A listener that throws is dropped; the run goes on. */
export class ChainEvents {
  readonly #listeners = new Map<string, Set<ChainEventListener>>();

  subscribe(runId: string, listener: ChainEventListener): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(runId) === set) this.#listeners.delete(runId);
    };
  }

  listening(runId: string): boolean {
    return this.#listeners.has(runId);
  }

  publish(event: ChainEvent): void {
    const set = this.#listeners.get(event.runId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        set.delete(listener);
      }
    }
  }
}
