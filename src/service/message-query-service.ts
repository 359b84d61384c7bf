import type { CompactResult } from "../agent/compact-now.js";
import { NotFoundError } from "../core/errors.js";
import { letOthersRun } from "../core/let-others-run.js";
import type { AgentMessage } from "../records/messages.js";
import type { OwnedMessage } from "../storage/conversation-store.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import type {
  CompactRequestBody,
  GlobalMessagesQuery,
  MessageSearchRequest,
} from "./conversation-requests.js";
import { compactTarget } from "./conversation-service.js";
import { type LettaMessageView, lettaMessages } from "./letta-views.js";
import { shownPage } from "./shown-page.js";

/** How many agents a search without `agent_id` looks through, at most. */
const MAX_AGENTS_SEARCHED = 1000;
/** How many agents' indexes a search reads before it lets other requests run (~10 ms here). */
const AGENTS_PER_SLICE = 64;

/** One stored message as Letta's views show it, with its agent and conversation. */
function views(owned: OwnedMessage): LettaMessageView[] {
  return lettaMessages([owned.message]).map((view) => ({
    ...view,
    agent_id: owned.agentId,
    conversation_id: owned.message.conversation_id ?? null,
  }));
}

/** Letta's `MessageSearchResult` entry: the message's text by its type. */
function searchResult(owned: OwnedMessage) {
  const { message, agentId } = owned;
  const base = {
    message_id: message.id,
    created_at: message.date,
    agent_id: agentId,
    conversation_id: message.conversation_id ?? null,
    message_type: message.message_type,
  };
  if (message.message_type === "reasoning_message")
    return { ...base, reasoning: message.reasoning };
  return { ...base, content: "content" in message ? message.content : textOf(message) };
}

function textOf(message: AgentMessage): string {
  if (message.message_type === "tool_return_message") return message.tool_return;
  if ("tool_call" in message) return message.tool_call.arguments;
  return "";
}

/**
 * The message routes that cross a project's agents (Letta's `/v1/messages`), and forcing an
 * agent's summarising compaction (`POST /v1/agents/{id}/summarize`).
 */
export class MessageQueryService {
  constructor(private readonly ctx: ServiceContext) {}

  /** A page of the project's messages; cursors mean newer/older, as the agent route's do. */
  async list(projectId: string, query: GlobalMessagesQuery): Promise<LettaMessageView[]> {
    const where = {
      projectId,
      ...(query.conversation_id !== undefined && { conversationId: query.conversation_id }),
    };
    const only = query.include_return_message_types;
    return shownPage(
      query,
      (page) => this.ctx.store.conversations.listProjectMessages(where, page),
      (rows) => rows.flatMap(views).filter((m) => !only || only.includes(m.message_type)),
      (row) => row.message.id,
    );
  }

  /** A message by id (Letta answers with a list: one stored message may show as several). */
  async get(projectId: string, messageId: string): Promise<LettaMessageView[]> {
    const found = await this.ctx.store.conversations.getMessage(projectId, messageId);
    if (!found) throw new NotFoundError("message", messageId);
    return views(found);
  }

  /** Full-text search of the project's messages (one agent's with `agent_id`), best first. */
  async search(projectId: string, body: MessageSearchRequest) {
    const agentIds = body.agent_id
      ? [(await requireAgent(this.ctx, projectId, body.agent_id)).record.id]
      : (
          await this.ctx.store.listAgents(projectId, { limit: MAX_AGENTS_SEARCHED, order: "asc" })
        ).map((agent) => agent.id);
    const fromMs = body.start_date ? Date.parse(body.start_date) : -Infinity;
    const toMs = body.end_date ? Date.parse(body.end_date) : Infinity;
    const results: ReturnType<typeof searchResult>[] = [];
    for (const [i, agentId] of agentIds.entries()) {
      if (i > 0 && i % AGENTS_PER_SLICE === 0) await letOthersRun();
      // More hits than asked for: the conversation and date filters apply after the search.
      const hits = await this.ctx.store.searchMessages(agentId, body.query, {
        limit: body.limit * 4,
      });
      for (const hit of hits) {
        if (hit.created_at_ms < fromMs || hit.created_at_ms > toMs) continue;
        const owned = await this.ctx.store.conversations.getMessage(projectId, hit.id);
        if (!owned) continue;
        if (body.conversation_id && owned.message.conversation_id !== body.conversation_id)
          continue;
        results.push(searchResult(owned));
        if (results.length >= body.limit) return results;
      }
    }
    return results;
  }

  /** Letta's `summarize`: the agent's default conversation, compacted now. */
  async summarize(
    projectId: string,
    agentId: string,
    body: CompactRequestBody,
  ): Promise<CompactResult> {
    await requireAgent(this.ctx, projectId, agentId);
    return compactTarget(this.ctx, { agentId, conversationId: null }, body);
  }
}
