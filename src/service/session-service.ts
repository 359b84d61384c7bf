import { NotFoundError } from "../core/errors.js";
import type { SessionState } from "../records/session-state.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { type LettaResponse, responseOf } from "./message-service.js";

/** The session id that names whichever session the agent is in now. */
const CURRENT = "current";

/** Holdfast's own session operations: resume, inspect, hand over. */
export class SessionService {
  constructor(private readonly ctx: ServiceContext) {}

  /** Carries the agent's session on from its last checkpoint. */
  async resume(
    projectId: string,
    agentId: string,
  ): Promise<LettaResponse & { session: SessionState }> {
    await requireAgent(this.ctx, projectId, agentId);
    const outcome = await this.ctx.engine.resume(agentId);
    return { ...responseOf(outcome, {}), session: await this.ctx.engine.session(agentId) };
  }

  /** The checkpoint of the agent's session `sessionId` (`current`: whichever it is now). */
  async get(projectId: string, agentId: string, sessionId: string): Promise<SessionState> {
    await requireAgent(this.ctx, projectId, agentId);
    const state = await this.ctx.engine.session(agentId);
    if (sessionId !== CURRENT && state.session_id !== sessionId)
      throw new NotFoundError("session", sessionId, [state.session_id]);
    return state;
  }

  /** Ends the agent's session (`current`: whichever it is); the next message begins a new one. */
  async end(projectId: string, agentId: string, sessionId: string): Promise<SessionState> {
    await requireAgent(this.ctx, projectId, agentId);
    const id =
      sessionId === CURRENT ? (await this.ctx.engine.session(agentId)).session_id : sessionId;
    return this.ctx.engine.endSession(agentId, id);
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
    return this.ctx.engine.transferSession(agentId, sessionId, targetId);
  }
}
