import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ValidationError } from "../../core/errors.js";
import { fieldErrorsFromZod } from "../../core/field-errors.js";
import type { McpServerService } from "../../service/mcp-server-service.js";
import { LettaMcpConfig } from "../../service/mcp-server-views.js";
import type { AppEnv } from "../auth.js";
import { ErrorBodySchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Letta's MCP server, secrets redacted, with Holdfast's connection state and tool names. */
const McpServerSchema = z.looseObject({
  id: z.string(),
  server_name: z.string(),
  mcp_server_type: z.enum(["stdio", "streamable_http"]),
  status: z.enum(["connecting", "connected", "failed", "closed"]),
  tool_names: z.array(z.string()),
});
const ToolSchema = z.looseObject({ id: z.string(), name: z.string(), tool_type: z.string() });

/** Checked in the handler, so that each field of the config gets its own path. */
const ConfigBody = z.looseObject({
  mcp_server_type: z.enum(["stdio", "streamable_http", "sse"]).optional(),
});
const CreateBody = z.object({ server_name: z.string().min(1).max(200), config: ConfigBody });
const UpdateBody = z.object({
  server_name: z.string().min(1).max(200).nullish(),
  config: ConfigBody,
});

const ServerParam = z.object({ mcp_server_id: z.string().min(1).max(200) });
const ERRORS = {
  404: json(ErrorBodySchema, "No such MCP server"),
  409: json(ErrorBodySchema, "A server of that name exists"),
  422: json(ErrorBodySchema, "Invalid request; `errors` gives each field's path"),
} as const;

const route = <M extends "get" | "post" | "patch" | "delete">(
  method: M,
  path: string,
  summary: string,
) => ({ method, path: `/v1/mcp-servers${path}`, tags: ["mcp-servers"], summary });

const list = createRoute({
  ...route("get", "", "The MCP servers: the config file's and those added through the API"),
  responses: { 200: json(z.array(McpServerSchema), "Every server") },
});
const create = createRoute({
  ...route("post", "", "Add a server (stdio or Streamable HTTP); it is stored and connected"),
  request: { body: { content: { "application/json": { schema: CreateBody } }, required: true } },
  responses: { 200: json(McpServerSchema, "The added server"), ...ERRORS },
});
const retrieve = createRoute({
  ...route("get", "/{mcp_server_id}", "One server, by id or name"),
  request: { params: ServerParam },
  responses: { 200: json(McpServerSchema, "The server"), 404: ERRORS[404] },
});
const update = createRoute({
  ...route("patch", "/{mcp_server_id}", "Change a server added through the API; it reconnects"),
  request: {
    params: ServerParam,
    body: { content: { "application/json": { schema: UpdateBody } }, required: true },
  },
  responses: { 200: json(McpServerSchema, "The changed server"), ...ERRORS },
});
const remove = createRoute({
  ...route("delete", "/{mcp_server_id}", "Remove a server added through the API, and its tools"),
  request: { params: ServerParam },
  responses: { 204: { description: "Removed" }, 404: ERRORS[404], 422: ERRORS[422] },
});
const tools = createRoute({
  ...route("get", "/{mcp_server_id}/tools", "The server's tools; attach them to agents by id"),
  request: { params: ServerParam },
  responses: { 200: json(z.array(ToolSchema), "Its tools"), 404: ERRORS[404] },
});
const tool = createRoute({
  ...route("get", "/{mcp_server_id}/tools/{tool_id}", "One of the server's tools"),
  request: { params: ServerParam.extend({ tool_id: z.string().min(1).max(200) }) },
  responses: { 200: json(ToolSchema, "The tool"), 404: ERRORS[404] },
});

const runTool = createRoute({
  ...route("post", "/{mcp_server_id}/tools/{tool_id}/run", "Call one of the server's tools now"),
  request: {
    params: ServerParam.extend({ tool_id: z.string().min(1).max(200) }),
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
    ...ERRORS,
  },
});
const refresh = createRoute({
  ...route(
    "patch",
    "/{mcp_server_id}/refresh",
    "List the server's tools again: added, updated, deleted",
  ),
  request: { params: ServerParam, query: z.object({ agent_id: z.string().max(200).optional() }) },
  responses: {
    200: json(z.looseObject({ added: z.array(z.string()) }), "What changed"),
    ...ERRORS,
  },
});

/** Letta's MCP server routes, as `@letta-ai/letta-client` calls them. */
export function mcpServerRoutes(app: OpenAPIHono<AppEnv>, servers: McpServerService): void {
  app.openapi(list, (c) => c.json(servers.list(), 200));
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    return c.json(await servers.create(body.server_name, lettaConfig(body.config)), 200);
  });
  app.openapi(retrieve, (c) => c.json(servers.get(c.req.valid("param").mcp_server_id), 200));
  app.openapi(update, async (c) => {
    const body = c.req.valid("json");
    const id = c.req.valid("param").mcp_server_id;
    const change = { server_name: body.server_name, config: lettaConfig(body.config) };
    return c.json(await servers.update(id, change), 200);
  });
  app.openapi(remove, async (c) => {
    await servers.delete(c.req.valid("param").mcp_server_id);
    return c.body(null, 204);
  });
  app.openapi(tools, (c) => c.json(servers.tools(c.req.valid("param").mcp_server_id), 200));
  app.openapi(runTool, async (c) => {
    const { mcp_server_id, tool_id } = c.req.valid("param");
    const { args } = c.req.valid("json") ?? { args: {} };
    return c.json(await servers.runTool(mcp_server_id, tool_id, args), 200);
  });
  app.openapi(refresh, async (c) =>
    c.json(
      await servers.refresh(c.req.valid("param").mcp_server_id, c.req.valid("query").agent_id),
      200,
    ),
  );
  app.openapi(tool, (c) => {
    const { mcp_server_id, tool_id } = c.req.valid("param");
    return c.json(servers.tool(mcp_server_id, tool_id), 200);
  });
}

function lettaConfig(config: unknown): LettaMcpConfig {
  const parsed = LettaMcpConfig.safeParse(config);
  if (!parsed.success)
    throw new ValidationError(
      "invalid MCP server config",
      fieldErrorsFromZod(parsed.error, ["config"]),
    );
  return parsed.data;
}
