import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { MessageService } from "../../service/message-service.js";
import { ListQuery, SendMessagesRequest } from "../../service/requests.js";
import type { AppEnv } from "../auth.js";
import { streamEvents } from "../event-stream.js";
import { AGENT_ERRORS, AgentIdParam, LettaMessageSchema, LettaResponseSchema } from "../schemas.js";
import { FrameMapper } from "../sse-frames.js";

const sendRoute = (path: string, summary: string) =>
  createRoute({
    method: "post",
    path,
    tags: ["messages"],
    summary,
    request: {
      params: AgentIdParam,
      body: { content: { "application/json": { schema: SendMessagesRequest } }, required: true },
    },
    responses: {
      200: {
        description: "Letta's response as JSON, or its SSE stream when `streaming` is true",
        content: {
          "application/json": { schema: LettaResponseSchema },
          "text/event-stream": { schema: z.string() },
        },
      },
      409: { description: "An approval is pending (PENDING_APPROVAL)" },
      ...AGENT_ERRORS,
    },
  });

const send = sendRoute("/v1/agents/{agent_id}/messages", "Send messages or approvals; JSON or SSE");
const sendStream = sendRoute("/v1/agents/{agent_id}/messages/stream", "Deprecated: always SSE");

const list = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/messages",
  tags: ["messages"],
  summary: "An agent's messages; page with `after`/`before` relative to `order`",
  request: { params: AgentIdParam, query: ListQuery },
  responses: {
    200: {
      description: "A page",
      content: { "application/json": { schema: z.array(LettaMessageSchema) } },
    },
    ...AGENT_ERRORS,
  },
});

const cancel = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/messages/cancel",
  tags: ["messages"],
  summary: "Cancel the agent's run in progress",
  request: { params: AgentIdParam },
  responses: {
    200: {
      description: 'The cancelled run: `{run_id: "cancelled"}`; 409 when nothing runs',
      content: { "application/json": { schema: z.record(z.string(), z.literal("cancelled")) } },
    },
    ...AGENT_ERRORS,
  },
});

export function messageRoutes(app: OpenAPIHono<AppEnv>, messages: MessageService): void {
  app.openapi(send, async (c) => {
    const body = c.req.valid("json");
    const { agent_id } = c.req.valid("param");
    if (body.streaming === true) return stream(c, messages, agent_id, body);
    return c.json(await messages.send(c.get("projectId"), agent_id, body), 200);
  });
  app.openapi(sendStream, async (c) =>
    stream(c, messages, c.req.valid("param").agent_id, c.req.valid("json")),
  );
  app.openapi(list, async (c) =>
    c.json(
      await messages.list(c.get("projectId"), c.req.valid("param").agent_id, c.req.valid("query")),
      200,
    ),
  );
  app.openapi(cancel, async (c) => {
    return c.json(await messages.cancel(c.get("projectId"), c.req.valid("param").agent_id), 200);
  });
}

/**
 * Streams the turn as SSE. The turn belongs to the agent, not to the connection: if the client
 * goes away, the turn still completes and is stored.
 */
async function stream(
  c: Context<AppEnv>,
  messages: MessageService,
  agentId: string,
  body: SendMessagesRequest,
) {
  // What fails at once (no such agent, a pending approval) gets its status, not a 200 stream.
  const run = await messages.startStream(c.get("projectId"), agentId, body);
  const mapper = new FrameMapper(
    body.stream_tokens === true,
    body.include_return_message_types ?? null,
  );
  return streamEvents(c, mapper, (onEvent) => run.pipe(onEvent));
}
