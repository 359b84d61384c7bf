import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ValidationError } from "../../core/errors.js";
import { fieldErrorsFromZod } from "../../core/field-errors.js";
import { FreeFormObject } from "../../records/free-form-json.js";
import { ListQuery } from "../../service/requests.js";
import type { ToolService } from "../../service/tool-service.js";
import type { AppEnv } from "../auth.js";
import {
  AGENT_ERRORS,
  AgentIdParam,
  AgentStateSchema,
  ErrorBodySchema,
  ToolSchema,
} from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const ToolIdParam = z.object({ tool_id: z.string().min(1).max(200) });
const Schema = FreeFormObject.nullish();
const Requirements = z
  .array(z.object({ name: z.string().min(1).max(200), version: z.string().max(100).nullish() }))
  .max(100)
  .nullish();

/** Letta's fields of a tool update; all optional. Checked only so that garbage gets field paths. */
const ToolUpdateBody = z.object({
  source_code: z.string().max(1_000_000).nullish(),
  source_type: z.string().max(100).nullish(),
  description: z.string().max(10_000).nullish(),
  json_schema: Schema,
  args_json_schema: Schema,
  default_requires_approval: z.boolean().nullish(),
  enable_parallel_execution: z.boolean().nullish(),
  return_char_limit: z.int().min(1).nullish(),
  tags: z.array(z.string().max(200)).max(100).nullish(),
  pip_requirements: Requirements,
  npm_requirements: Requirements,
  metadata_: Schema,
});

/** `POST` and `PUT /v1/tools/`: Letta requires the source code. */
const ToolCreateBody = ToolUpdateBody.extend({ source_code: z.string().max(1_000_000) });

const REFUSED = json(
  ErrorBodySchema,
  "Holdfast runs no tool source code it is sent; always refused",
);
const NOT_FOUND = json(ErrorBodySchema, "No such tool");

const listTools = createRoute({
  method: "get",
  path: "/v1/tools",
  tags: ["tools"],
  summary:
    "The tool catalogue (built-in tools and connected MCP servers' tools); page with `after`/`before` relative to `order`",
  request: {
    query: ListQuery.extend({
      name: z.string().max(200).optional(),
      search: z.string().max(200).optional(),
    }),
  },
  responses: { 200: json(z.array(ToolSchema), "A page of tools"), 422: AGENT_ERRORS[422] },
});

const getTool = createRoute({
  method: "get",
  path: "/v1/tools/{tool_id}",
  tags: ["tools"],
  summary: "One tool by id (`tool-<name>`)",
  request: { params: ToolIdParam },
  responses: { 200: json(ToolSchema, "The tool"), 404: NOT_FOUND },
});

const writeTool = (method: "post" | "put") =>
  createRoute({
    method,
    path: "/v1/tools",
    tags: ["tools"],
    summary: "Refused: custom tools with source code are not supported",
    request: {
      body: { content: { "application/json": { schema: ToolCreateBody } }, required: true },
    },
    responses: { 422: REFUSED },
  });

const updateTool = createRoute({
  method: "patch",
  path: "/v1/tools/{tool_id}",
  tags: ["tools"],
  summary: "Refused: built-in tools cannot be changed",
  request: {
    params: ToolIdParam,
    body: { content: { "application/json": { schema: ToolUpdateBody } }, required: true },
  },
  responses: { 404: NOT_FOUND, 422: REFUSED },
});

const deleteTool = createRoute({
  method: "delete",
  path: "/v1/tools/{tool_id}",
  tags: ["tools"],
  summary: "Refused: built-in tools cannot be deleted",
  request: { params: ToolIdParam },
  responses: { 404: NOT_FOUND, 422: REFUSED },
});

const agentTools = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/tools",
  tags: ["tools"],
  summary: "The tools an agent is offered, with whether each needs approval",
  request: { params: AgentIdParam, query: ListQuery },
  responses: { 200: json(z.array(ToolSchema), "A page of tools"), ...AGENT_ERRORS },
});

const AgentToolParams = AgentIdParam.extend({ tool_id: z.string().min(1).max(200) });

const attachOrDetach = (action: "attach" | "detach", summary: string) =>
  createRoute({
    method: "patch",
    path: `/v1/agents/{agent_id}/tools/${action}/{tool_id}`,
    tags: ["tools"],
    summary,
    request: { params: AgentToolParams },
    responses: { 200: json(AgentStateSchema, "The updated agent"), ...AGENT_ERRORS },
  });

const attach = attachOrDetach("attach", "Offer a tool to an agent, within its type's ceiling");
const detach = attachOrDetach("detach", "Stop offering a tool, even one from the agent's type");

/** Letta's generated client sends `body_requires_approval`; `requires_approval` is the plain name. */
const ApprovalBody = z.object({
  body_requires_approval: z.boolean().optional(),
  requires_approval: z.boolean().optional(),
});

const approval = createRoute({
  method: "patch",
  path: "/v1/agents/{agent_id}/tools/approval/{tool_name}",
  tags: ["tools"],
  summary:
    "Require (or stop requiring) a human's approval for each call of a tool; approval the type's policy requires cannot be turned off (422)",
  request: {
    params: AgentIdParam.extend({ tool_name: z.string().min(1).max(200) }),
    query: z.object({ requires_approval: z.enum(["true", "false"]).optional() }),
    body: { content: { "application/json": { schema: ApprovalBody } }, required: false },
  },
  responses: { 200: json(AgentStateSchema, "The updated agent"), ...AGENT_ERRORS },
});

const runForAgent = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/tools/{tool_name}/run",
  tags: ["tools"],
  summary:
    "Run one of the agent's tools now under its type's ceiling, rules and approval policy, in its sandbox; memory tools and calls needing approval are refused (422)",
  request: {
    params: AgentIdParam.extend({ tool_name: z.string().min(1).max(200) }),
    body: {
      content: {
        "application/json": {
          schema: z.object({ args: z.record(z.string(), z.unknown()).default({}) }),
        },
      },
      required: false,
    },
  },
  responses: {
    200: json(z.looseObject({ status: z.string() }), "Letta's ToolExecutionResult"),
    ...AGENT_ERRORS,
  },
});

/** Tool routes: `/v1/tools` and an agent's tools. */
export function toolRoutes(app: OpenAPIHono<AppEnv>, tools: ToolService): void {
  app.openapi(listTools, (c) => {
    const { name, search, ...page } = c.req.valid("query");
    const filters = {
      name,
      search,
      names: listParam(c, "names"),
      toolIds: listParam(c, "tool_ids"),
    };
    return c.json(tools.list(page, filters), 200);
  });
  app.openapi(getTool, (c) => c.json(tools.get(c.req.valid("param").tool_id), 200));
  app.openapi(runForAgent, async (c) => {
    const { agent_id, tool_name } = c.req.valid("param");
    const { args } = c.req.valid("json") ?? { args: {} };
    return c.json(await tools.run(c.get("projectId"), agent_id, tool_name, args), 200);
  });
  for (const method of ["post", "put"] as const) {
    app.openapi(writeTool(method), (c) => {
      c.req.valid("json");
      return tools.refuseCustom();
    });
  }
  app.openapi(updateTool, (c) => {
    c.req.valid("json");
    return tools.refuseCustom(c.req.valid("param").tool_id);
  });
  app.openapi(deleteTool, (c) => tools.refuseCustom(c.req.valid("param").tool_id));

  app.openapi(agentTools, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(
      await tools.listForAgent(c.get("projectId"), agent_id, c.req.valid("query")),
      200,
    );
  });
  app.openapi(attach, async (c) => {
    const { agent_id, tool_id } = c.req.valid("param");
    return c.json(await tools.attach(c.get("projectId"), agent_id, tool_id), 200);
  });
  app.openapi(detach, async (c) => {
    const { agent_id, tool_id } = c.req.valid("param");
    return c.json(await tools.detach(c.get("projectId"), agent_id, tool_id), 200);
  });
  app.openapi(approval, async (c) => {
    const { agent_id, tool_name } = c.req.valid("param");
    const body = await approvalBody(c);
    const query = c.req.valid("query").requires_approval;
    const value =
      body.body_requires_approval ??
      body.requires_approval ??
      (query === undefined ? undefined : query === "true");
    if (value === undefined)
      throw new ValidationError("invalid request", [
        { path: "body_requires_approval", message: "send true or false" },
      ]);
    return c.json(await tools.setApproval(c.get("projectId"), agent_id, tool_name, value), 200);
  });
}

/** The approval body, which Hono's validator skips when no JSON content type is sent. */
async function approvalBody(c: Context<AppEnv>): Promise<ApprovalBody> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ValidationError("invalid request", [{ path: "", message: "the body is not JSON" }]);
  }
  const parsed = ApprovalBody.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError("invalid request", fieldErrorsFromZod(parsed.error));
  return parsed.data;
}
type ApprovalBody = z.infer<typeof ApprovalBody>;

/** A list query parameter, as repeated keys or comma-separated values. */
function listParam(c: Context<AppEnv>, key: string): string[] | undefined {
  const values = c.req.queries(key)?.flatMap((value) => value.split(","));
  return values?.length ? values.map((value) => value.trim()).filter(Boolean) : undefined;
}
