import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AgentChildNode } from "../../records/agent-state.js";
import type { AgentService } from "../../service/agent-service.js";
import { CreateAgentRequest, ListQuery, UpdateAgentRequest } from "../../service/requests.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, AgentStateSchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const create = createRoute({
  method: "post",
  path: "/v1/agents",
  tags: ["agents"],
  summary: "Create an agent of a registered type (Letta's fields)",
  request: {
    body: { content: { "application/json": { schema: CreateAgentRequest } }, required: true },
  },
  responses: { 200: json(AgentStateSchema, "The new agent"), 422: AGENT_ERRORS[422] },
});

const list = createRoute({
  method: "get",
  path: "/v1/agents",
  tags: ["agents"],
  summary: "List agents; page with `after`/`before` relative to `order`",
  request: {
    query: ListQuery.extend({
      name: z.string().max(200).optional(),
      query_text: z.string().max(200).optional(),
      match_all_tags: z.enum(["true", "false"]).optional(),
    }),
  },
  responses: { 200: json(z.array(AgentStateSchema), "A page of agents"), 422: AGENT_ERRORS[422] },
});

const get = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}",
  tags: ["agents"],
  summary: "An agent's state",
  request: { params: AgentIdParam },
  responses: { 200: json(AgentStateSchema, "The agent"), ...AGENT_ERRORS },
});

const update = createRoute({
  method: "patch",
  path: "/v1/agents/{agent_id}",
  tags: ["agents"],
  summary: "Change an agent's name, prompt, model, rules, tags or metadata",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: UpdateAgentRequest } }, required: true },
  },
  responses: { 200: json(AgentStateSchema, "The updated agent"), ...AGENT_ERRORS },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/agents/{agent_id}",
  tags: ["agents"],
  summary: "Delete an agent and everything it has",
  request: { params: AgentIdParam },
  responses: { 200: json(z.object({}), "Deleted"), ...AGENT_ERRORS },
});

/** A sub-agent; `children` holds nodes of the same shape (OpenAPI cannot name the recursion). */
const ChildNodeSchema = AgentChildNode;

const children = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/children",
  tags: ["agents"],
  summary: "The sub-agents the agent spawned, each with its status and its own sub-agents",
  request: { params: AgentIdParam },
  responses: { 200: json(z.array(ChildNodeSchema), "The tree below the agent"), ...AGENT_ERRORS },
});

export function agentRoutes(app: OpenAPIHono<AppEnv>, agents: AgentService): void {
  app.openapi(create, async (c) =>
    c.json(await agents.create(c.get("projectId"), c.req.valid("json")), 200),
  );
  app.openapi(list, async (c) => {
    const { name, query_text, match_all_tags, ...page } = c.req.valid("query");
    const tags = c.req.queries("tags");
    const filters = { name, queryText: query_text, tags, matchAllTags: match_all_tags === "true" };
    const include = includeOf(c.req.queries());
    return c.json(await agents.list(c.get("projectId"), page, filters, include), 200);
  });
  app.openapi(get, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(await agents.get(c.get("projectId"), agent_id, includeOf(c.req.queries())), 200);
  });
  app.openapi(update, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(await agents.update(c.get("projectId"), agent_id, c.req.valid("json")), 200);
  });
  app.openapi(children, async (c) =>
    c.json(
      (await agents.children(c.get("projectId"), c.req.valid("param").agent_id)) as z.infer<
        typeof ChildNodeSchema
      >[],
      200,
    ),
  );
  app.openapi(remove, async (c) => {
    await agents.delete(c.get("projectId"), c.req.valid("param").agent_id);
    return c.json({}, 200);
  });
}

/** Letta's `include` list, sent as repeated `include` (or `include[]`) keys. */
function includeOf(queries: Record<string, string[]>): string[] {
  return [...(queries.include ?? []), ...(queries["include[]"] ?? [])];
}
