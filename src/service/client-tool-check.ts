import { awaitingApproval, decisionProblems } from "../agent/approvals.js";
import { InvalidApprovalError, ValidationError } from "../core/errors.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { SendOptions } from "../runtime/engine.js";
import { clientToolProblems } from "../tools/client-tools.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import type { ResolvedAgent, ServiceContext } from "./agent-access.js";
import type { SendMessagesRequest } from "./requests.js";

/**
 * Checks what a message request asks before it runs, so that a mistake is a 4xx with its field
 * and never a failure inside the agent (or after a stream's headers went out): its client tools
 * must be offerable beside the agent's own, and answers to approvals must fit what the agent
 * waits for. Returns the client tools for the engine. The engine checks the answers again
 * against the session as it is when they apply.
 */
export function checkRequest(
  ctx: ServiceContext,
  agent: ResolvedAgent,
  body: SendMessagesRequest,
  input: { kind: "message" } | { kind: "approvals"; decisions: ApprovalDecision[] },
  session: SessionState | null,
): Pick<SendOptions, "clientTools"> {
  const tools = body.client_tools;
  if (tools) {
    const caps = effectiveCapabilities(agent.type, agent.overrides, ctx.config.catalogue);
    const own = caps.offered.map((grant) => grant.name);
    const errors = clientToolProblems(tools, own);
    if (errors.length > 0) throw new ValidationError("invalid client tools", errors);
  }
  if (input.kind === "approvals") checkAnswers(session, input.decisions);
  return tools ? { clientTools: tools } : {};
}

/**
 * Answers to approvals an agent waits for itself must name its waiting calls; with nothing
 * waiting, Letta asks for a regular message instead. An agent asleep for its sub-agents passes
 * the answers down, and they are checked there.
 */
function checkAnswers(session: SessionState | null, decisions: readonly ApprovalDecision[]): void {
  if (session?.phase === "awaiting_children" || session?.phase === "running") return;
  if (!session || awaitingApproval(session).length === 0) {
    throw new InvalidApprovalError("invalid approval", [
      {
        path: "messages.0.approvals",
        message: "no tool call is awaiting approval; send a regular message instead",
      },
    ]);
  }
  const errors = decisionProblems(session, decisions).map((error) => ({
    ...error,
    path: `messages.0.${error.path}`,
  }));
  if (errors.length > 0) throw new InvalidApprovalError("invalid approval", errors);
}
