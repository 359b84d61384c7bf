import type { ChainEvent } from "../chains/chain-events.js";
import type { ChainRunView } from "../service/chain-service.js";
import { type Frame, FrameMapper } from "./sse-frames.js";

const json = (value: unknown): Frame => ({ data: JSON.stringify(value) });

/**
 * Turns a chain run's events into SSE frames: the run's, its stages' and its agents' changes,
 * and each stage agent's own messages in Letta's shapes, tagged with the run, stage and agent.
 * An agent's error is not an error frame (Letta's clients would end the whole stream on it):
 * it shows as that agent's `failed` status.
 */
export class ChainFrameMapper {
  readonly #agents = new Map<string, FrameMapper>();

  constructor(private readonly streamTokens: boolean) {}

  snapshot(run: ChainRunView): Frame {
    return json({ message_type: "chain_run", ...run });
  }

  frames(event: ChainEvent): Frame[] {
    const chain_run_id = event.runId;
    switch (event.type) {
      case "run":
        return [
          json({
            message_type: "chain_run_status",
            chain_run_id,
            status: event.status,
            score: event.score,
            error: event.error,
            pending_approvals: event.pendingApprovals,
          }),
        ];
      case "stage": {
        const { stage, status, output, error } = event;
        return [json({ message_type: "chain_stage", chain_run_id, stage, status, output, error })];
      }
      case "agent":
        return [
          json({ message_type: "chain_agent", chain_run_id, stage: event.stage, ...event.agent }),
        ];
      case "agent_event": {
        const tags = {
          chain_run_id,
          stage: event.stage,
          agent_name: event.agentName,
          agent_id: event.event.agentId,
        };
        return this.#mapper(event.event.agentId)
          .frames(event.event)
          .filter((frame) => frame.event !== "error")
          .map((frame) => json({ ...tags, ...JSON.parse(frame.data) }));
      }
    }
  }

  #mapper(agentId: string): FrameMapper {
    let mapper = this.#agents.get(agentId);
    if (!mapper) {
      mapper = new FrameMapper(this.streamTokens);
      this.#agents.set(agentId, mapper);
    }
    return mapper;
  }
}
