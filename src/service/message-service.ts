import type { LoopEvent } from "../agent/events.js";
import type { TurnResult } from "../agent/run-turn.js";
import { ValidationError } from "../core/errors.js";
import type { AgentMessage, StopReason } from "../records/messages.js";
import type { Usage } from "../records/session-state.js";
import { PendingApprovalError } from "../runtime/agent-runtime.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { lettaMessages } from "./letta-views.js";
import type { ListQuery, SendMessagesRequest } from "./requests.js";

/** Letta's `LettaResponse`: what the agent produced (not the input), why it stopped, usage. */
export interface LettaResponse {
  messages: AgentMessage[];
  stop_reason: { message_type: "stop_reason"; stop_reason: StopReason };
  usage: ReturnType<typeof usageView>;
}

export function usageView(usage: Usage) {
  return {
    message_type: "usage_statistics" as const,
    completion_tokens: usage.completion_tokens,
    prompt_tokens: usage.prompt_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    step_count: usage.step_count,
  };
}

/** What one request asks the agent to do: a user message, or answers to approvals. */
type Input =
  | { kind: "message"; content: string; otid: string | null }
  | {
      kind: "approvals";
      decisions: { tool_call_id: string; approve: boolean; reason: string | null }[];
    };

function inputOf(body: SendMessagesRequest): Input {
  const messages = body.messages ?? [];
  const approval = messages.find((m) => m.type === "approval");
  if (approval && approval.type === "approval") {
    if (messages.length > 1) {
      throw new ValidationError("invalid messages", [
        { path: "messages", message: "send approvals alone" },
      ]);
    }
    const decisions = approval.approvals.map((a) => ({
      tool_call_id: a.tool_call_id,
      approve: a.approve,
      reason: a.reason ?? null,
    }));
    return { kind: "approvals", decisions };
  }
  const texts = messages.map((m) =>
    "content" in m
      ? typeof m.content === "string"
        ? m.content
        : m.content.map((p) => p.text).join("")
      : "",
  );
  if (body.input !== undefined) texts.push(body.input);
  const first = messages[0];
  const otid = first && "otid" in first ? (first.otid ?? null) : null;
  return { kind: "message", content: texts.join("\n\n"), otid };
}

/** Messages of an agent: sending (sync or streamed), listing, cancelling. */
export class MessageService {
  constructor(private readonly ctx: ServiceContext) {}

  /**
   * Runs what the request asks and answers with Letta's response. A retried message (same
   * `otid`) answers from the run it started the first time, without running it again.
   */
  async send(
    projectId: string,
    agentId: string,
    body: SendMessagesRequest,
    onEvent?: (event: LoopEvent) => void,
  ): Promise<LettaResponse> {
    await requireAgent(this.ctx, projectId, agentId);
    const input = inputOf(body);
    const run = {
      ...(onEvent ? { onEvent } : {}),
      ...(body.max_steps ? { maxSteps: body.max_steps } : {}),
    };
    const only = body.include_return_message_types;
    const filter = (response: LettaResponse): LettaResponse =>
      only
        ? { ...response, messages: response.messages.filter((m) => only.includes(m.message_type)) }
        : response;
    if (input.kind === "approvals") {
      return filter(
        response(await this.ctx.runtime.submitApprovals(agentId, input.decisions, run)),
      );
    }
    const outcome = await this.ctx.runtime.sendMessage(
      agentId,
      { content: input.content, otid: input.otid },
      run,
    );
    if (!outcome.duplicate) return filter(response(outcome.result));
    const recent = await this.ctx.store.listMessages(agentId, { limit: 1000, order: "desc" });
    const ofRun = recent.filter((m) => m.run_id === outcome.run.id).reverse();
    const session = await this.ctx.store.loadSession(agentId);
    return filter({
      messages: lettaMessages(ofRun.filter((m) => m.message_type !== "user_message")),
      stop_reason: {
        message_type: "stop_reason",
        stop_reason: (outcome.run.stop_reason as StopReason | null) ?? "end_turn",
      },
      usage: usageView(
        session?.run_id === outcome.run.id
          ? session.usage
          : { prompt_tokens: 0, completion_tokens: 0, step_count: 0 },
      ),
    });
  }

  /**
   * Refuses, before any streaming starts, what would fail at once: an unknown agent, or a new
   * message while an approval is pending (Letta's 409 PENDING_APPROVAL).
   */
  async precheck(projectId: string, agentId: string, body: SendMessagesRequest): Promise<void> {
    await requireAgent(this.ctx, projectId, agentId);
    if (inputOf(body).kind === "approvals") return;
    const session = await this.ctx.store.loadSession(agentId);
    if (session?.phase === "awaiting_approval") {
      const waiting = session.pending.filter((c) => c.status === "awaiting_approval");
      throw new PendingApprovalError(waiting.map((c) => c.tool_call.tool_call_id));
    }
  }

  async list(projectId: string, agentId: string, query: ListQuery): Promise<AgentMessage[]> {
    await requireAgent(this.ctx, projectId, agentId);
    const page = await this.ctx.store.listMessages(agentId, query);
    return lettaMessages(page);
  }

  /** Cancels the agent's run in progress; true if there was one. */
  async cancel(projectId: string, agentId: string): Promise<boolean> {
    await requireAgent(this.ctx, projectId, agentId);
    return this.ctx.runtime.cancel(agentId);
  }
}

function response(result: TurnResult): LettaResponse {
  return {
    messages: lettaMessages(result.messages.filter((m) => m.message_type !== "user_message")),
    stop_reason: { message_type: "stop_reason", stop_reason: result.stopReason },
    usage: usageView(result.usage),
  };
}
