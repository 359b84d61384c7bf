import { ArrivalOrder } from "../core/arrival-order.js";
import { ConflictError, ValidationError } from "../core/errors.js";
import type { LettaResponse, LettaUsage } from "../records/letta-message.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { Usage } from "../records/session-state.js";
import type { AgentEvent } from "../runtime/agent-events.js";
import type { RunOutcome, SendOptions } from "../runtime/engine.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { refuseCallbackUrl } from "./callback-url.js";
import { checkRequest } from "./client-tool-check.js";
import { type LettaMessageView, lettaMessages, type RunView, runView } from "./letta-views.js";
import { ModelRunError } from "./model-failure.js";
import type { ListQuery, SendMessagesRequest } from "./requests.js";
import { shownPage } from "./shown-page.js";

export type { LettaResponse };

export function usageView(usage: Usage): LettaUsage {
  return {
    message_type: "usage_statistics",
    completion_tokens: usage.completion_tokens,
    prompt_tokens: usage.prompt_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    step_count: usage.step_count,
  };
}

/** What one request asks the agent to do: a user message, or answers to approvals. */
type Input =
  | { kind: "message"; content: string; otid: string | null }
  | { kind: "approvals"; decisions: ApprovalDecision[] };

function inputOf(body: SendMessagesRequest): Input {
  const messages = body.messages ?? [];
  const approval = messages.find((m) => m.type === "approval");
  if (approval && approval.type === "approval") {
    if (messages.length > 1) {
      throw new ValidationError("invalid messages", [
        { path: "messages", message: "send approvals alone" },
      ]);
    }
    const entries = approval.approvals ?? [
      {
        type: "approval" as const,
        tool_call_id: approval.approval_request_id ?? "",
        approve: approval.approve ?? false,
        reason: approval.reason ?? null,
      },
    ];
    const decisions = entries.map(
      (a): ApprovalDecision =>
        a.type === "tool"
          ? {
              type: "tool",
              tool_call_id: a.tool_call_id,
              tool_return: textOf(a.tool_return),
              status: a.status,
            }
          : { tool_call_id: a.tool_call_id, approve: a.approve, reason: a.reason ?? null },
    );
    return { kind: "approvals", decisions };
  }
  const texts = messages.map((m) => ("content" in m ? textOf(m.content) : ""));
  if (body.input !== undefined) texts.push(body.input);
  const first = messages[0];
  const otid = first && "otid" in first ? (first.otid ?? null) : null;
  return { kind: "message", content: texts.join("\n\n"), otid };
}

const textOf = (content: string | readonly { text: string }[]) =>
  typeof content === "string" ? content : content.map((part) => part.text).join("");

/** How a run ends when its model failed: a non-streamed request answers with Letta's error. */
const MODEL_FAILURES: ReadonlySet<string> = new Set(["llm_api_error", "invalid_llm_response"]);

/** Messages of an agent: sending (sync or streamed), listing, cancelling. */
export class MessageService {
  /** Messages to one agent reach the engine in the order they arrived here. */
  readonly #arrivals = new ArrivalOrder();

  constructor(private readonly ctx: ServiceContext) {}

  /**
   * Runs what the request asks and answers with Letta's response. A retried message (same
   * `otid`) answers from the run it started the first time, without running it again.
   */
  async send(
    projectId: string,
    agentId: string,
    body: SendMessagesRequest,
    conversationId: string | null = null,
  ): Promise<LettaResponse> {
    let failure: { message: string; kind?: string | undefined } | undefined;
    let unsubscribe = () => {};
    let outcome: RunOutcome;
    try {
      outcome = await this.#arrivals.run(
        agentId,
        () => this.#prepare(projectId, agentId, body),
        ({ input, clientTools, runId }) => {
          unsubscribe = this.ctx.engine.subscribe(agentId, (event) => {
            if (event.runId === runId && event.type === "error")
              failure = { message: event.message, kind: event.kind };
          });
          const options = { ...clientTools, ...(runId ? { runId } : {}), conversationId };
          return this.#run(agentId, body, input, options);
        },
      );
    } finally {
      unsubscribe();
    }
    if (MODEL_FAILURES.has(outcome.stopReason)) {
      throw new ModelRunError(failure?.kind, failure?.message ?? outcome.stopReason, outcome.runId);
    }
    return responseOf(outcome, body);
  }

  /**
   * Starts the request's run for an SSE stream and resolves once the engine has taken it (its
   * first event), so what the engine refuses at once (a pending approval: Letta's 409, an
   * unknown agent) is thrown here, before any stream begins. `pipe` then hands `write` every
   * event of the run as it happens; a retried message's run is replayed from the store.
   */
  async startStream(
    projectId: string,
    agentId: string,
    body: SendMessagesRequest,
    conversationId: string | null = null,
  ): Promise<{ pipe(write: (event: AgentEvent) => void): Promise<void> }> {
    const started = await this.#start(projectId, agentId, body, conversationId);
    return {
      pipe: async (write) => {
        try {
          started.attach(write);
          const outcome = await started.running;
          if (outcome.duplicate) replay(agentId, outcome, write);
        } finally {
          started.detach();
        }
      },
    };
  }

  /**
   * Letta's `messages/async`: starts the run in the background and answers with it. It answers
   * once the run is stored (its first message committed), so the run routes find it at once;
   * an agent busy with another run queues this one, and the answer waits for it to start.
   */
  async sendAsync(projectId: string, agentId: string, body: SendMessagesRequest): Promise<RunView> {
    const { runId, running, detach } = await this.#start(projectId, agentId, body);
    // The run goes on without the caller; its outcome is in the run record.
    detach();
    const run = runId ? await this.ctx.store.getRun(runId) : null;
    if (!run) await running;
    if (!run) throw new ValidationError("the message started no run", []);
    return { ...runView(run), background: true };
  }

  /**
   * Hands the request to the engine and resolves once its run has begun (its first event) or
   * ended; a refusal before the run began (the engine's own check of a pending approval) is
   * thrown. Events until `attach` are kept and handed over then, in order.
   */
  async #start(
    projectId: string,
    agentId: string,
    body: SendMessagesRequest,
    conversationId: string | null = null,
  ) {
    // The engine takes requests for an agent in the order they arrived (ArrivalOrder): the
    // subscription and the run start at the hand-over, the wait for the run's first event after.
    return this.#arrivals.run(
      agentId,
      () => this.#prepare(projectId, agentId, body),
      async ({ input, clientTools, runId }) => {
        const kept: AgentEvent[] = [];
        let write: ((event: AgentEvent) => void) | null = null;
        let begun: () => void = () => {};
        const begins = new Promise<void>((resolve) => {
          begun = resolve;
        });
        let refused: { error: unknown } | null = null;
        const detach = this.ctx.engine.subscribe(agentId, (event) => {
          if (event.runId !== runId) return;
          begun();
          if (write) write(event);
          else kept.push(event);
        });
        const options = { ...clientTools, ...(runId ? { runId } : {}), conversationId };
        const running = this.#run(agentId, body, input, options);
        running
          .catch((error: unknown) => {
            if (kept.length === 0 && write === null) refused = { error };
          })
          .finally(begun);
        await begins;
        if (refused !== null) {
          detach();
          throw (refused as { error: unknown }).error;
        }
        const attach = (to: (event: AgentEvent) => void) => {
          write = to;
          for (const event of kept.splice(0)) to(event);
        };
        return { runId, running, attach, detach };
      },
    );
  }

  #run(agentId: string, body: SendMessagesRequest, input: Input, options: SendOptions) {
    const run = { ...options, ...(body.max_steps ? { maxSteps: body.max_steps } : {}) };
    return input.kind === "approvals"
      ? this.ctx.engine.approve(agentId, input.decisions, run)
      : this.ctx.engine.send(agentId, { content: input.content, otid: input.otid }, run);
  }

  /** The request checked against its agent, its client tools, and the run it starts or resumes. */
  async #prepare(projectId: string, agentId: string, body: SendMessagesRequest) {
    const agent = await requireAgent(this.ctx, projectId, agentId);
    const input = inputOf(body);
    // Answers to approvals are checked against the session the engine holds, whose run they go on.
    const session = input.kind === "approvals" ? await this.ctx.engine.session(agentId) : null;
    refuseCallbackUrl(body.callback_url, "the run is in GET /v1/runs/{run_id}");
    const clientTools = checkRequest(this.ctx, agent, body, input, session);
    if (input.kind === "message" && input.otid !== null)
      await this.#refuseReusedOtid(agentId, input);
    const runId = session ? session.run_id : this.ctx.ids.next("run");
    return { input, clientTools, runId };
  }

  /**
   * An `otid` sent again with the same message answers from the first run (a retry); with
   * another message it is a 409: answering the first run's reply for it would tell the client
   * its new message was handled when it was dropped.
   */
  async #refuseReusedOtid(agentId: string, input: { content: string; otid: string | null }) {
    const run = input.otid === null ? null : await this.ctx.store.findRunByKey(agentId, input.otid);
    if (!run) return;
    const sent = (await this.ctx.store.listRunMessages(run.id)).find(
      (m) => m.message_type === "user_message" && m.otid === input.otid,
    );
    if (sent && "content" in sent && sent.content !== input.content) {
      throw new ConflictError(
        `otid '${input.otid}' was sent with another message (run ${run.id}); a retry sends the same message, a new message a new otid`,
      );
    }
  }

  /**
   * An agent's history as Letta's messages route pages it (`shownPage`): `after` means newer
   * than the cursor and `before` older, whatever the `order` (letta/services/message_manager.py,
   * `list_messages` filters by sequence); a `desc` page is still shown oldest first
   * (letta/server/server.py, `get_agent_recall_async` reverses it).
   */
  async list(projectId: string, agentId: string, query: ListQuery): Promise<LettaMessageView[]> {
    await requireAgent(this.ctx, projectId, agentId);
    return shownPage(query, (page) => this.ctx.store.listMessages(agentId, page), lettaMessages);
  }

  /**
   * Cancels the agent's run in progress, and its sub-agents'. Answers as Letta's cancel route
   * does (letta/server/rest_api/routers/v1/agents.py, `cancel_message`): `{run_id: "cancelled"}`,
   * or a 409 when nothing runs (Letta's NoActiveRunsToCancelError).
   */
  async cancel(projectId: string, agentId: string): Promise<Record<string, "cancelled">> {
    await requireAgent(this.ctx, projectId, agentId);
    // The stored checkpoint, not the engine's session: that waits for the running turn.
    const runId = (await this.ctx.store.loadSession(agentId))?.run_id ?? null;
    if (!(await this.ctx.engine.cancel(agentId))) throw new NoActiveRunsError(agentId);
    return runId ? { [runId]: "cancelled" } : {};
  }
}

/**
 * What the caller sent, which Letta's answers leave out: its message, and its answer to
 * approvals (so an answer with a client tool's result starts with that tool return, as Letta's).
 */
export const INPUT_TYPES: ReadonlySet<string> = new Set([
  "user_message",
  "approval_response_message",
]);

/** Letta's response for a run's outcome, with approvals its sub-agents wait for. */
export function responseOf(
  outcome: RunOutcome,
  body: { include_return_message_types?: string[] | null | undefined },
): LettaResponse {
  const only = body.include_return_message_types;
  const own = lettaMessages(outcome.messages.filter((m) => !INPUT_TYPES.has(m.message_type)));
  const below = outcome.childApprovals.flatMap((a) =>
    lettaMessages([a.message]).map((m) => ({ ...m, agent_id: a.agentId })),
  );
  const messages = [...own, ...below];
  return {
    messages: only ? messages.filter((m) => only.includes(m.message_type)) : messages,
    stop_reason: { message_type: "stop_reason", stop_reason: outcome.stopReason },
    usage: usageView(outcome.usage),
    ...(outcome.verification ? { verification: outcome.verification } : {}),
  };
}

/** A finished run told again as events, for a stream of a retried message. */
function replay(agentId: string, outcome: RunOutcome, write: (event: AgentEvent) => void): void {
  const { runId } = outcome;
  for (const message of outcome.messages) write({ type: "message", message, agentId, runId });
  for (const { agentId: from, message } of outcome.childApprovals)
    write({ type: "message", message, agentId, runId, from });
  write({ type: "stop", stop_reason: outcome.stopReason, agentId, runId });
  write({ type: "usage", usage: outcome.usage, agentId, runId });
}

/** Cancelling an agent that runs nothing: Letta's 409 `NO_ACTIVE_RUNS_TO_CANCEL`. */
export class NoActiveRunsError extends ConflictError {
  override readonly code: string = "NO_ACTIVE_RUNS_TO_CANCEL";
  constructor(agentId: string) {
    super(`No active runs to cancel for agent ${agentId}`);
  }
}
