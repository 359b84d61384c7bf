import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  CompactRequestBody,
  GlobalMessagesQuery,
  MessageSearchRequest,
} from "../../service/conversation-requests.js";
import type { MessageQueryService } from "../../service/message-query-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, LettaMessageSchema } from "../schemas.js";

const json = (schema: z.ZodType, description: string) => ({
  200: { description, content: { "application/json": { schema } } },
  ...AGENT_ERRORS,
});
const tags = ["messages"];

const list = createRoute({
  method: "get",
  path: "/v1/messages",
  tags,
  summary: "Messages of the project's agents, across agents and conversations",
  request: { query: GlobalMessagesQuery },
  responses: json(z.array(LettaMessageSchema), "A page"),
});
const get = createRoute({
  method: "get",
  path: "/v1/messages/{message_id}",
  tags,
  summary: "A message by id (a list: one stored message may show as several)",
  request: { params: z.object({ message_id: z.string().min(1).max(200) }) },
  responses: json(z.array(LettaMessageSchema), "The message"),
});
const search = createRoute({
  method: "post",
  path: "/v1/messages/search",
  tags,
  summary: "Full-text search of the project's messages",
  request: {
    body: { content: { "application/json": { schema: MessageSearchRequest } }, required: true },
  },
  responses: json(z.array(z.looseObject({ message_id: z.string() })), "Results, best first"),
});
const summarize = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/summarize",
  tags,
  summary: "Fold the agent's older messages into its summary now (Letta's compact)",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: CompactRequestBody } }, required: false },
  },
  responses: json(
    z.object({
      summary: z.string(),
      num_messages_before: z.number(),
      num_messages_after: z.number(),
    }),
    "Letta's CompactionResponse",
  ),
});

/** Letta's `/v1/messages` and `POST /v1/agents/{id}/summarize`. */
export function globalMessageRoutes(app: OpenAPIHono<AppEnv>, queries: MessageQueryService): void {
  app.openapi(search, async (c) =>
    c.json(await queries.search(c.get("projectId"), c.req.valid("json")), 200),
  );
  app.openapi(list, async (c) =>
    c.json(await queries.list(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(get, async (c) =>
    c.json(await queries.get(c.get("projectId"), c.req.valid("param").message_id), 200),
  );
  app.openapi(summarize, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(
      await queries.summarize(c.get("projectId"), agent_id, c.req.valid("json") ?? {}),
      200,
    );
  });
}
