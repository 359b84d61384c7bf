import { NotFoundError } from "../core/errors.js";
import type { SessionState } from "../records/session-state.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { lettaMessages } from "./letta-views.js";
import { type LettaResponse, usageView } from "./message-service.js";

/** Holdfast's own session operations: resume, inspect, hand over. */
export class SessionService {
  constructor(private readonly ctx: ServiceContext) {}

  /** Carries the agent's session on from its last checkpoint. */
  async resume(
    projectId: string,
    agentId: string,
  ): Promise<LettaResponse & { session: SessionState }> {
    await requireAgent(this.ctx, projectId, agentId);
    const result = await this.ctx.runtime.resume(agentId);
    return {
      messages: lettaMessages(result.messages),
      stop_reason: { message_type: "stop_reason", stop_reason: result.stopReason },
      usage: usageView(result.usage),
      session: result.state,
    };
  }

  /** The checkpoint of the agent's session `sessionId`. */
  async get(projectId: string, agentId: string, sessionId: string): Promise<SessionState> {
    await requireAgent(this.ctx, projectId, agentId);
    const state = await this.ctx.runtime.session(agentId);
    if (state.session_id !== sessionId)
      throw new NotFoundError("session", sessionId, [state.session_id]);
    return state;
  }

  /** Hands the session to another agent of the same project. */
  async transfer(
    projectId: string,
    agentId: string,
    sessionId: string,
    targetId: string,
  ): Promise<SessionState> {
    await requireAgent(this.ctx, projectId, agentId);
    await requireAgent(this.ctx, projectId, targetId);
    return this.ctx.runtime.transferSession(agentId, sessionId, targetId);
  }
}
