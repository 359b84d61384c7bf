import { KeyedListeners } from "../core/keyed-listeners.js";
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

/** Subscriptions per chain run (see KeyedListeners). */
export class ChainEvents {
  readonly #listeners = new KeyedListeners<ChainEvent>();

  subscribe(runId: string, listener: ChainEventListener): () => void {
    return this.#listeners.subscribe(runId, listener);
  }

  listening(runId: string): boolean {
    return this.#listeners.listening(runId);
  }

  publish(event: ChainEvent): void {
    this.#listeners.publish(event.runId, event);
  }
}
