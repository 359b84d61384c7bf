import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AgentIdQuery,
  CompactRequestBody,
  ConversationListQuery,
  ConversationMessagesQuery,
  ConversationSendRequest,
  ConversationStreamRequest,
  CreateConversationRequest,
  ForkQuery,
  OptionalAgentQuery,
  UpdateConversationRequest,
} from "../../service/conversation-requests.js";
import type { ConversationService } from "../../service/conversation-service.js";
import type { MessageService } from "../../service/message-service.js";
import type { RunService } from "../../service/run-service.js";
import type { AppEnv } from "../auth.js";
import { streamEvents } from "../event-stream.js";
import { AGENT_ERRORS, LettaMessageSchema, LettaResponseSchema } from "../schemas.js";
import { FrameMapper } from "../sse-frames.js";

const Param = z.object({ conversation_id: z.string().min(1).max(200) });
const ConversationSchema = z.looseObject({ id: z.string(), agent_id: z.string() });
const CompactionSchema = z.object({
  summary: z.string(),
  num_messages_before: z.number(),
  num_messages_after: z.number(),
});
const json = (schema: z.ZodType, description: string) => ({
  200: { description, content: { "application/json": { schema } } },
  ...AGENT_ERRORS,
});
const sse = {
  200: {
    description: "Letta's SSE stream (JSON with `streaming: false`)",
    content: {
      "application/json": { schema: LettaResponseSchema },
      "text/event-stream": { schema: z.string() },
    },
  },
  ...AGENT_ERRORS,
};
const body = <T extends z.ZodType>(schema: T, required = true) => ({
  content: { "application/json": { schema } },
  required,
});
const path = "/v1/conversations/{conversation_id}";
const tags = ["conversations"];

const routes = {
  list: createRoute({
    method: "get",
    path: "/v1/conversations",
    tags,
    summary: "Conversations of the project (or of one agent), newest first",
    request: { query: ConversationListQuery },
    responses: json(z.array(ConversationSchema), "A page"),
  }),
  create: createRoute({
    method: "post",
    path: "/v1/conversations",
    tags,
    summary: "A new conversation with an agent: its own history, the agent's memory",
    request: { query: AgentIdQuery, body: body(CreateConversationRequest, false) },
    responses: json(ConversationSchema, "The conversation"),
  }),
  get: createRoute({
    method: "get",
    path,
    tags,
    summary: "A conversation",
    request: { params: Param },
    responses: json(ConversationSchema, "The conversation"),
  }),
  update: createRoute({
    method: "patch",
    path,
    tags,
    summary: "Change a conversation's summary, description, archiving",
    request: { params: Param, body: body(UpdateConversationRequest) },
    responses: json(ConversationSchema, "The conversation"),
  }),
  delete: createRoute({
    method: "delete",
    path,
    tags,
    summary: "Delete a conversation; its messages stay the agent's",
    request: { params: Param },
    responses: json(z.null(), "Deleted"),
  }),
  cancel: createRoute({
    method: "post",
    path: `${path}/cancel`,
    tags,
    summary: "Cancel the agent's run when it runs in this conversation",
    request: { params: Param, query: OptionalAgentQuery },
    responses: json(
      z.record(z.string(), z.literal("cancelled")),
      '`{run_id: "cancelled"}`; 409 when none runs',
    ),
  }),
  compact: createRoute({
    method: "post",
    path: `${path}/compact`,
    tags,
    summary: "Fold the conversation's older messages into its summary now",
    request: { params: Param, body: body(CompactRequestBody, false) },
    responses: json(CompactionSchema, "Letta's CompactionResponse"),
  }),
  fork: createRoute({
    method: "post",
    path: `${path}/fork`,
    tags,
    summary: "A new conversation with a copy of this one's messages",
    request: { params: Param, query: ForkQuery },
    responses: json(ConversationSchema, "The new conversation"),
  }),
  messages: createRoute({
    method: "get",
    path: `${path}/messages`,
    tags,
    summary: "The conversation's messages; cursors mean newer/older",
    request: { params: Param, query: ConversationMessagesQuery },
    responses: json(z.array(LettaMessageSchema), "A page"),
  }),
  send: createRoute({
    method: "post",
    path: `${path}/messages`,
    tags,
    summary: "Send a message in the conversation; SSE unless `streaming` is false",
    request: { params: Param, body: body(ConversationSendRequest) },
    responses: sse,
  }),
  recompile: createRoute({
    method: "post",
    path: `${path}/recompile`,
    tags,
    summary: "The system prompt compiled with the agent's memory now",
    request: {
      params: Param,
      query: z.object({ dry_run: z.string().optional() }),
      body: body(CompactRequestBody, false),
    },
    responses: json(z.string(), "The compiled system prompt"),
  }),
  stream: createRoute({
    method: "post",
    path: `${path}/stream`,
    tags,
    summary: "Re-attach to the conversation's run in progress",
    request: { params: Param, body: body(ConversationStreamRequest, false) },
    responses: sse,
  }),
};

export interface ConversationRouteServices {
  conversations: ConversationService;
  messages: MessageService;
  runs?: RunService | undefined;
}

/** Letta's `/v1/conversations` (decision 026). */
export function conversationRoutes(app: OpenAPIHono<AppEnv>, s: ConversationRouteServices): void {
  const { conversations } = s;
  app.openapi(routes.list, async (c) =>
    c.json(await conversations.list(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(routes.create, async (c) => {
    const { agent_id } = c.req.valid("query");
    const created = await conversations.create(
      c.get("projectId"),
      agent_id,
      c.req.valid("json") ?? {},
    );
    return c.json(created, 200);
  });
  app.openapi(routes.get, async (c) =>
    c.json(await conversations.get(c.get("projectId"), c.req.valid("param").conversation_id), 200),
  );
  app.openapi(routes.update, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const updated = await conversations.update(
      c.get("projectId"),
      conversation_id,
      c.req.valid("json"),
    );
    return c.json(updated, 200);
  });
  app.openapi(routes.delete, async (c) => {
    const { conversation_id } = c.req.valid("param");
    return c.json(await conversations.delete(c.get("projectId"), conversation_id), 200);
  });
  app.openapi(routes.cancel, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const { agent_id } = c.req.valid("query");
    return c.json(await conversations.cancel(c.get("projectId"), conversation_id, agent_id), 200);
  });
  app.openapi(routes.compact, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const request = c.req.valid("json") ?? {};
    return c.json(await conversations.compact(c.get("projectId"), conversation_id, request), 200);
  });
  app.openapi(routes.fork, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const query = c.req.valid("query");
    const fork = await conversations.fork(c.get("projectId"), conversation_id, {
      agentId: query.agent_id,
      messageId: query.message_id,
      hidden: query.hidden,
    });
    return c.json(fork, 200);
  });
  app.openapi(routes.messages, async (c) => {
    const { conversation_id } = c.req.valid("param");
    return c.json(
      await conversations.messages(c.get("projectId"), conversation_id, c.req.valid("query")),
      200,
    );
  });
  app.openapi(routes.send, async (c) => {
    const projectId = c.get("projectId");
    const request = c.req.valid("json");
    const where = await conversations.target(
      projectId,
      c.req.valid("param").conversation_id,
      request.agent_id,
    );
    await conversations.touched(where);
    if (request.streaming === false) {
      const answer = await s.messages.send(projectId, where.agentId, request, where.conversationId);
      return c.json(answer, 200);
    }
    // What fails at once (a pending approval, say) gets its status, not a 200 stream.
    const run = await s.messages.startStream(
      projectId,
      where.agentId,
      request,
      where.conversationId,
    );
    const mapper = new FrameMapper(
      request.stream_tokens === true,
      request.include_return_message_types ?? null,
    );
    return streamEvents(c, mapper, (onEvent) => run.pipe(onEvent));
  });
  app.openapi(routes.recompile, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const agentId = c.req.valid("json")?.agent_id ?? undefined;
    return c.json(await conversations.recompile(c.get("projectId"), conversation_id, agentId), 200);
  });
  app.openapi(routes.stream, async (c) => {
    const projectId = c.get("projectId");
    const request = c.req.valid("json") ?? {};
    const { runs } = s;
    const runId = await conversations.activeRun(
      projectId,
      c.req.valid("param").conversation_id,
      request,
    );
    if (!runs) throw new Error("the run service is not wired");
    await runs.get(projectId, runId);
    return streamEvents(c, new FrameMapper(false), (onEvent) =>
      runs.stream(projectId, runId, request.starting_after ?? 0, onEvent),
    );
  });
}
