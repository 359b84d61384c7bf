import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AgentFolderService } from "../../service/agent-folder-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, AgentStateSchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const Id = z.string().min(1).max(200);
const FolderParam = AgentIdParam.extend({ folder_id: Id });
const FileParam = AgentIdParam.extend({ file_id: Id });
const ListQuery = (limit: number) =>
  z.object({
    after: Id.optional(),
    before: Id.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(limit),
    order: z.enum(["asc", "desc"]).default("desc"),
    order_by: z.literal("created_at").optional(),
  });
const FilesQuery = ListQuery(20).extend({
  cursor: Id.optional(),
  is_open: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
});
const AgentFileSchema = z.looseObject({
  id: z.string(),
  file_id: z.string(),
  file_name: z.string(),
  folder_id: z.string(),
  folder_name: z.string(),
  is_open: z.boolean(),
});

const route = <M extends "get" | "patch">(method: M, path: string, summary: string) => ({
  method,
  path: `/v1/agents/{agent_id}${path}`,
  tags: ["agents"],
  summary,
});

const folders = createRoute({
  ...route("get", "/folders", "The folders attached to the agent"),
  request: { params: AgentIdParam, query: ListQuery(100) },
  responses: { 200: json(z.array(z.looseObject({ id: z.string() })), "Folders"), ...AGENT_ERRORS },
});
const attach = createRoute({
  ...route("patch", "/folders/attach/{folder_id}", "Attach a folder: its files open in context"),
  request: { params: FolderParam },
  responses: {
    200: json(AgentStateSchema, "The agent, with the folder in `sources`"),
    ...AGENT_ERRORS,
  },
});
const detach = createRoute({
  ...route("patch", "/folders/detach/{folder_id}", "Detach a folder and close its files"),
  request: { params: FolderParam },
  responses: { 200: json(AgentStateSchema, "The agent"), ...AGENT_ERRORS },
});
const files = createRoute({
  ...route("get", "/files", "The agent's files, open or closed, paged"),
  request: { params: AgentIdParam, query: FilesQuery },
  responses: {
    200: json(
      z.object({
        files: z.array(AgentFileSchema),
        next_cursor: z.string().nullable(),
        has_more: z.boolean(),
      }),
      "A page of files",
    ),
    ...AGENT_ERRORS,
  },
});
const closeAll = createRoute({
  ...route("patch", "/files/close-all", "Close every open file; answers their names"),
  request: { params: AgentIdParam },
  responses: { 200: json(z.array(z.string()), "The files closed"), ...AGENT_ERRORS },
});
const open = createRoute({
  ...route("patch", "/files/{file_id}/open", "Open a file; answers the files LRU closed"),
  request: { params: FileParam },
  responses: { 200: json(z.array(z.string()), "The files closed to make room"), ...AGENT_ERRORS },
});
const close = createRoute({
  ...route("patch", "/files/{file_id}/close", "Close a file"),
  request: { params: FileParam },
  responses: { 200: json(z.object({ message: z.string() }), "Closed"), ...AGENT_ERRORS },
});

/** Letta's agent folder and file routes. */
export function agentFolderRoutes(app: OpenAPIHono<AppEnv>, service: AgentFolderService): void {
  app.openapi(folders, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(await service.list(c.get("projectId"), agent_id, c.req.valid("query")), 200);
  });
  app.openapi(attach, async (c) => {
    const { agent_id, folder_id } = c.req.valid("param");
    return c.json(await service.attach(c.get("projectId"), agent_id, folder_id), 200);
  });
  app.openapi(detach, async (c) => {
    const { agent_id, folder_id } = c.req.valid("param");
    return c.json(await service.detach(c.get("projectId"), agent_id, folder_id), 200);
  });
  app.openapi(files, async (c) => {
    const { agent_id } = c.req.valid("param");
    const { is_open, cursor, ...query } = c.req.valid("query");
    const paged = { ...query, after: query.after ?? cursor };
    return c.json(await service.files(c.get("projectId"), agent_id, paged, is_open), 200);
  });
  app.openapi(closeAll, async (c) =>
    c.json(await service.closeAll(c.get("projectId"), c.req.valid("param").agent_id), 200),
  );
  app.openapi(open, async (c) => {
    const { agent_id, file_id } = c.req.valid("param");
    return c.json(await service.open(c.get("projectId"), agent_id, file_id), 200);
  });
  app.openapi(close, async (c) => {
    const { agent_id, file_id } = c.req.valid("param");
    return c.json(await service.close(c.get("projectId"), agent_id, file_id), 200);
  });
}
