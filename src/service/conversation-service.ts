import type { CompactResult } from "../agent/compact-now.js";
import { renderSystem } from "../agent/prompt.js";
import { createTurnAgent } from "../agent/turn-agent.js";
import { InvalidArgumentError, NotFoundError, ValidationError } from "../core/errors.js";
import { ModelError } from "../llm/model-error.js";
import type { ConversationRecord } from "../records/conversation.js";
import type { AgentMessage } from "../records/messages.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import type {
  CompactRequestBody,
  ConversationListQuery,
  ConversationMessagesQuery,
  CreateConversationRequest,
  UpdateConversationRequest,
} from "./conversation-requests.js";
import { type LettaMessageView, lettaMessages } from "./letta-views.js";
import { NoActiveRunsError } from "./message-service.js";
import { ModelRunError } from "./model-failure.js";
import { shownPage } from "./shown-page.js";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Letta's `Conversation`. */
export function conversationView(record: ConversationRecord) {
  return {
    id: record.id,
    agent_id: record.agent_id,
    summary: record.summary,
    description: record.description,
    model: record.model,
    model_settings: null,
    context_window_limit: record.context_window_limit,
    archived: record.archived,
    archived_at: iso(record.archived_at_ms),
    last_message_at: iso(record.last_message_at_ms),
    in_context_message_ids: null,
    created_at: iso(record.created_at_ms),
    updated_at: iso(record.updated_at_ms),
    created_by_id: null,
    last_updated_by_id: null,
  };
}
export type ConversationView = ReturnType<typeof conversationView>;

/**
 * Where a conversation route acts: an agent, and one of its conversations (null: the default
 * one, Letta's "agent-direct mode": `default` with an `agent_id`, or an agent id in its place).
 */
export interface ConversationTarget {
  agentId: string;
  conversationId: string | null;
  record: ConversationRecord | null;
}

/** Letta's `/v1/conversations`: several conversations with one agent (decision 026). */
export class ConversationService {
  constructor(private readonly ctx: ServiceContext) {}

  async create(projectId: string, agentId: string, body: CreateConversationRequest) {
    await requireAgent(this.ctx, projectId, agentId);
    const record = this.#newRecord(agentId, body);
    await this.ctx.store.conversations.create(record);
    return conversationView(record);
  }

  async list(projectId: string, query: ConversationListQuery): Promise<ConversationView[]> {
    if (query.agent_id) await requireAgent(this.ctx, projectId, query.agent_id);
    const archived =
      query.archive_status === "all" ? undefined : query.archive_status === "archived";
    const records = await this.ctx.store.conversations.list(
      {
        projectId,
        agentId: query.agent_id,
        archived,
        summarySearch: query.summary_search,
      },
      { after: query.after, limit: query.limit, order: query.order },
    );
    return records.map(conversationView);
  }

  async get(projectId: string, conversationId: string): Promise<ConversationView> {
    return conversationView(await this.#own(projectId, conversationId));
  }

  async update(projectId: string, conversationId: string, body: UpdateConversationRequest) {
    const found = await this.#own(projectId, conversationId);
    const now = this.ctx.clock.now();
    const archived = body.archived ?? found.archived;
    const updated: ConversationRecord = {
      ...found,
      ...(body.summary !== undefined && { summary: body.summary }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.model !== undefined && { model: body.model }),
      ...(body.context_window_limit !== undefined && {
        context_window_limit: body.context_window_limit,
      }),
      ...(body.last_message_at != null && {
        last_message_at_ms: Date.parse(body.last_message_at),
      }),
      archived,
      archived_at_ms: archived ? (found.archived_at_ms ?? now) : null,
      updated_at_ms: now,
    };
    if (body.model) this.#checkModel(body.model, "model");
    refuseModelSettings(body.model_settings);
    if (!(await this.ctx.store.conversations.update(updated)))
      throw new NotFoundError("conversation", conversationId);
    return conversationView(updated);
  }

  /** Deletes the conversation; its messages stay the agent's (Letta deletes softly too). */
  async delete(projectId: string, conversationId: string): Promise<null> {
    await this.#own(projectId, conversationId);
    await this.ctx.store.conversations.delete(conversationId);
    return null;
  }

  /** Resolves a route's conversation id, `default` with an agent id included. */
  async target(
    projectId: string,
    conversationId: string,
    agentId: string | null | undefined,
  ): Promise<ConversationTarget> {
    const direct =
      conversationId === "default"
        ? agentId
        : conversationId.startsWith("agent-")
          ? conversationId
          : null;
    if (conversationId === "default" && !agentId) {
      throw new ValidationError("the default conversation needs an agent", [
        { path: "agent_id", message: "required with the conversation id 'default'" },
      ]);
    }
    if (direct) {
      await requireAgent(this.ctx, projectId, direct);
      return { agentId: direct, conversationId: null, record: null };
    }
    const record = await this.#own(projectId, conversationId);
    return { agentId: record.agent_id, conversationId: record.id, record };
  }

  /** A page of the conversation's messages, paged as the agent's messages route pages. */
  async messages(
    projectId: string,
    conversationId: string,
    query: ConversationMessagesQuery,
  ): Promise<LettaMessageView[]> {
    const where = await this.target(projectId, conversationId, query.agent_id);
    return shownPage(
      query,
      (page) =>
        this.ctx.store.conversations.listMessages(where.agentId, where.conversationId, page),
      lettaMessages,
    );
  }

  /** Notes that a message was sent to the conversation (Letta's `last_message_at`). */
  async touched(where: ConversationTarget): Promise<void> {
    if (!where.record) return;
    const now = this.ctx.clock.now();
    await this.ctx.store.conversations.update({
      ...where.record,
      last_message_at_ms: now,
      updated_at_ms: now,
    });
  }

  /**
   * Cancels the agent's run when it runs in this conversation; Letta's 409
   * `NO_ACTIVE_RUNS_TO_CANCEL` when none does.
   */
  async cancel(projectId: string, conversationId: string, agentId?: string) {
    const where = await this.target(projectId, conversationId, agentId);
    const session = await this.ctx.store.loadSession(where.agentId);
    const runId = session?.run_id ?? null;
    const inHere = (session?.conversation_id ?? null) === where.conversationId;
    if (!inHere || session?.phase === "idle" || !(await this.ctx.engine.cancel(where.agentId)))
      throw new NoActiveRunsError(where.conversationId ?? where.agentId);
    return runId ? { [runId]: "cancelled" } : {};
  }

  /** Folds the conversation's older messages into its summary now (Letta's `compact`). */
  async compact(
    projectId: string,
    conversationId: string,
    body: CompactRequestBody,
  ): Promise<CompactResult> {
    const where = await this.target(projectId, conversationId, body.agent_id);
    return compactTarget(this.ctx, where, body);
  }

  /**
   * A new conversation of the same agent holding copies of the source's messages (up to and
   * including `messageId`): it goes on from there on its own, sharing the agent's memory.
   */
  async fork(
    projectId: string,
    conversationId: string,
    options: {
      agentId?: string | undefined;
      messageId?: string | undefined;
      hidden?: boolean | undefined;
    },
  ): Promise<ConversationView> {
    const where = await this.target(projectId, conversationId, options.agentId);
    const all = await this.ctx.store.conversations.listMessages(
      where.agentId,
      where.conversationId,
      { limit: Number.MAX_SAFE_INTEGER, order: "asc" },
    );
    let kept: AgentMessage[] = all;
    if (options.messageId) {
      const at = all.findIndex((m) => m.id === options.messageId);
      if (at < 0) throw new NotFoundError("message", options.messageId);
      kept = all.slice(0, at + 1);
    }
    const source = where.record;
    const record = this.#newRecord(where.agentId, {
      summary: source?.summary ?? null,
      description: source?.description ?? null,
      model: source?.model ?? null,
      context_window_limit: source?.context_window_limit ?? null,
      hidden: options.hidden ?? false,
    });
    const copies = kept.map((m) => ({ ...m, id: this.ctx.ids.next("message") }));
    await this.ctx.store.conversations.create(record, copies);
    return conversationView(record);
  }

  /**
   * The system prompt the conversation's next model call gets, compiled now with the agent's
   * current memory (Holdfast compiles it at every call, so there is nothing to rewrite).
   */
  async recompile(projectId: string, conversationId: string, agentId?: string): Promise<string> {
    const where = await this.target(projectId, conversationId, agentId);
    const agent = await requireAgent(this.ctx, projectId, where.agentId);
    const turn = createTurnAgent({
      id: where.agentId,
      type: agent.type,
      overrides: agent.overrides,
      rules: agent.record.tool_rules,
      catalogue: this.ctx.config.catalogue,
      contextAfter: agent.record.context_after,
    });
    const blocks = await this.ctx.store.loadBlocks(where.agentId);
    return renderSystem(turn.systemPrompt, blocks, turn.config.capabilities.memory.core_memory);
  }

  /** The run to re-attach to: the one named, else the conversation's run in progress. */
  async activeRun(
    projectId: string,
    conversationId: string,
    body: {
      agent_id?: string | null | undefined;
      run_id?: string | null | undefined;
      otid?: string | null | undefined;
    },
  ): Promise<string> {
    const where = await this.target(projectId, conversationId, body.agent_id);
    if (body.run_id) return body.run_id;
    if (body.otid) {
      const run = await this.ctx.store.findRunByKey(where.agentId, body.otid);
      if (run) return run.id;
    }
    const session = await this.ctx.store.loadSession(where.agentId);
    const inHere = (session?.conversation_id ?? null) === where.conversationId;
    if (!session?.run_id || !inHere || session.phase === "idle")
      throw new InvalidArgumentError("No active runs found for this conversation.");
    return session.run_id;
  }

  #newRecord(agentId: string, body: CreateConversationRequest): ConversationRecord {
    if (body.model) this.#checkModel(body.model, "model");
    refuseModelSettings(body.model_settings);
    const now = this.ctx.clock.now();
    return {
      id: this.ctx.ids.next("conv"),
      agent_id: agentId,
      summary: body.summary ?? null,
      description: body.description ?? null,
      model: body.model ?? null,
      context_window_limit: body.context_window_limit ?? null,
      hidden: body.hidden ?? false,
      archived: false,
      archived_at_ms: null,
      last_message_at_ms: null,
      created_at_ms: now,
      updated_at_ms: now,
    };
  }

  #checkModel(handle: string, path: string): void {
    const problem = this.ctx.checkModel(handle);
    if (problem) throw new ValidationError("invalid model", [{ path, message: problem }]);
  }

  /** The conversation, if it belongs to an agent of this project. */
  async #own(projectId: string, conversationId: string): Promise<ConversationRecord> {
    const found = await this.ctx.store.conversations.get(conversationId);
    const agent = found && (await this.ctx.store.getAgent(found.agent_id));
    if (!found || agent?.project_id !== projectId)
      throw new NotFoundError("conversation", conversationId);
    return found;
  }
}

/** Compacts the target's history as the request's settings say (Letta's default: a sliding window). */
export function compactTarget(
  ctx: ServiceContext,
  where: { agentId: string; conversationId: string | null },
  body: CompactRequestBody,
): Promise<CompactResult> {
  const settings = body.compaction_settings ?? {};
  const mode = settings.mode?.endsWith("all") ? "all" : "sliding_window";
  const compacting = ctx.engine.compact(where.agentId, {
    conversationId: where.conversationId,
    mode,
    ...(settings.sliding_window_percentage !== undefined && {
      foldShare: settings.sliding_window_percentage,
    }),
  });
  // A summariser that failed answers as a failed model call does.
  return compacting.catch((error: unknown) => {
    if (error instanceof ModelError) throw new ModelRunError(undefined, error.message, null);
    throw error;
  });
}

/**
 * Letta's per-conversation `model_settings` (temperature, output tokens…): a conversation here
 * takes its model's settings from the agent's type, so these are a 422, not a field dropped.
 */
function refuseModelSettings(settings: Record<string, unknown> | null | undefined): void {
  if (settings == null) return;
  throw new ValidationError("model_settings is not supported", [
    {
      path: "model_settings",
      message:
        "a conversation takes its model's settings from the agent's type; set `model` to change the model",
    },
  ]);
}
