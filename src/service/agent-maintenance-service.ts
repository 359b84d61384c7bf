import { ConflictError, ValidationError } from "../core/errors.js";
import { changeAgent, requireAgent, type ServiceContext } from "./agent-access.js";
import { exportAgentFile } from "./agent-file-export.js";
import { type ImportOptions, importAgentFile } from "./agent-file-import.js";
import { contextWindowOverview } from "./context-window-view.js";

/**
 * Letta's agent maintenance routes: agent files (export, import), the context window, and
 * resetting the context. Each works within one project.
 */
export class AgentMaintenanceService {
  constructor(private readonly ctx: ServiceContext) {}

  exportFile(projectId: string, agentId: string, options: { scrubMessages?: boolean } = {}) {
    return exportAgentFile(this.ctx, projectId, agentId, options);
  }

  importFile(projectId: string, raw: unknown, options: ImportOptions) {
    return importAgentFile(this.ctx, projectId, raw, options);
  }

  context(projectId: string, agentId: string) {
    return contextWindowOverview(this.ctx, projectId, agentId);
  }

  /**
   * Letta's `recompile`: the system prompt compiled from the agent's memory as it is now (its
   * blocks, shared ones included, with their latest values). Holdfast compiles it afresh for
   * every turn, so there is nothing stale to rewrite: this answers with what the next turn
   * sends, and `dry_run` changes nothing.
   */
  async recompile(projectId: string, agentId: string): Promise<string> {
    const overview = await contextWindowOverview(this.ctx, projectId, agentId);
    return overview.system_prompt + overview.core_memory;
  }

  /**
   * Letta's `reset-messages`: the model's context starts empty again (after the system prompt
   * and core memory, which are always compiled fresh); the history stays stored, listed and
   * searchable, as Letta keeps it in recall. Refused with 409 while the agent has a run in
   * progress or waits (approval, sub-agents, a pause), so no turn loses the messages it is
   * working from. Letta answers the 1.x client with `null`, and so does this.
   */
  async resetMessages(
    projectId: string,
    agentId: string,
    body: { add_default_initial_messages?: boolean | undefined },
  ): Promise<null> {
    await requireAgent(this.ctx, projectId, agentId);
    if (body.add_default_initial_messages)
      throw new ValidationError("invalid request", [
        {
          path: "add_default_initial_messages",
          message:
            "Holdfast agents have no default initial messages; reset without them and send the first message",
        },
      ]);
    const session = await this.ctx.store.loadSession(agentId);
    const active = await this.ctx.store.listRuns(
      { projectId, agentId, active: true },
      { limit: 1, order: "desc" },
    );
    if ((session && session.phase !== "idle") || active.length > 0)
      throw new ConflictError(
        `agent ${agentId} has a run in progress (${session?.phase ?? "running"}); cancel it or wait for it to end, then reset`,
      );
    const [newest] = await this.ctx.store.recentMessages(agentId, 1);
    if (newest)
      await changeAgent(this.ctx, projectId, agentId, () => ({ context_after: newest.id }));
    return null;
  }
}
