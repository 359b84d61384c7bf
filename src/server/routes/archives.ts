import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { LettaArchive, LettaPassage, LettaPassageSearchResult } from "../../records/archive.js";
import {
  type ArchiveService,
  CreateArchivePassage,
  CreateArchivePassages,
  CreateArchiveRequest,
  SearchPassagesRequest,
  UpdateArchiveRequest,
} from "../../service/archive-service.js";
import type { AppEnv } from "../auth.js";
import { ErrorBodySchema, named } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

const ArchiveSchema = named(LettaArchive, "Archive");
const PassageSchema = named(LettaPassage, "Passage");
const SearchResultSchema = named(LettaPassageSearchResult, "PassageSearchResult");

const Id = z.string().min(1).max(200);
const ArchiveParam = z.object({ archive_id: Id });
const PassageParam = ArchiveParam.extend({ passage_id: Id });
const AgentArchiveParam = ArchiveParam.extend({ agent_id: Id });
const ListArchives = z.object({
  after: Id.optional(),
  before: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  order: z.enum(["asc", "desc"]).default("desc"),
  order_by: z.literal("created_at").optional(),
  name: z.string().max(255).optional(),
  agent_id: Id.optional(),
});

const ERRORS = {
  404: json(ErrorBodySchema, "No such archive, passage or agent in this project"),
  422: json(ErrorBodySchema, "Invalid request; `errors` gives each field's path"),
} as const;

const route = <M extends "get" | "post" | "patch" | "delete">(
  method: M,
  path: string,
  summary: string,
) => ({ method, path, tags: ["archives"], summary });

const list = createRoute({
  ...route("get", "/v1/archives", "The project's archives, newest first by default"),
  request: { query: ListArchives },
  responses: { 200: json(z.array(ArchiveSchema), "Archives"), ...ERRORS },
});
const create = createRoute({
  ...route("post", "/v1/archives", "Create an archive (searched by words; no embedding)"),
  request: body(CreateArchiveRequest),
  responses: { 200: json(ArchiveSchema, "The archive"), ...ERRORS },
});
const retrieve = createRoute({
  ...route("get", "/v1/archives/{archive_id}", "An archive"),
  request: { params: ArchiveParam },
  responses: { 200: json(ArchiveSchema, "The archive"), ...ERRORS },
});
const update = createRoute({
  ...route("patch", "/v1/archives/{archive_id}", "Rename an archive or change its description"),
  request: { params: ArchiveParam, ...body(UpdateArchiveRequest) },
  responses: { 200: json(ArchiveSchema, "The archive"), ...ERRORS },
});
const remove = createRoute({
  ...route("delete", "/v1/archives/{archive_id}", "Delete an archive, its passages, attachments"),
  request: { params: ArchiveParam },
  responses: { 204: { description: "Deleted" }, ...ERRORS },
});
const addPassage = createRoute({
  ...route("post", "/v1/archives/{archive_id}/passages", "Add a passage to an archive"),
  request: { params: ArchiveParam, ...body(CreateArchivePassage) },
  responses: { 200: json(PassageSchema, "The passage"), ...ERRORS },
});
const addPassages = createRoute({
  ...route("post", "/v1/archives/{archive_id}/passages/batch", "Add passages, all or none"),
  request: { params: ArchiveParam, ...body(CreateArchivePassages) },
  responses: { 200: json(z.array(PassageSchema), "The passages, in the order sent"), ...ERRORS },
});
const removePassage = createRoute({
  ...route("delete", "/v1/archives/{archive_id}/passages/{passage_id}", "Delete a passage"),
  request: { params: PassageParam },
  responses: { 204: { description: "Deleted" }, ...ERRORS },
});
const link = (action: "attach" | "detach", summary: string) =>
  createRoute({
    ...route("patch", `/v1/agents/{agent_id}/archives/${action}/{archive_id}`, summary),
    request: { params: AgentArchiveParam },
    responses: { 200: json(z.null(), "Done"), ...ERRORS },
  });
const attach = link("attach", "Attach an archive: the agent's archival search reaches it");
const detach = link("detach", "Detach an archive from the agent (the archive stays)");
const search = createRoute({
  ...route("post", "/v1/passages/search", "Search an agent's archival memory or one archive"),
  request: body(SearchPassagesRequest),
  responses: { 200: json(z.array(SearchResultSchema), "Passages, best first"), ...ERRORS },
});

/** Letta's archives, attaching them to agents, and `POST /v1/passages/search`. */
export function archiveRoutes(app: OpenAPIHono<AppEnv>, service: ArchiveService): void {
  const project = (c: { get(key: "projectId"): string }) => c.get("projectId");
  app.openapi(list, async (c) => {
    const { name, agent_id, ...query } = c.req.valid("query");
    const filter = { ...(name !== undefined && { name }), ...(agent_id && { agentId: agent_id }) };
    return c.json(await service.list(project(c), query, filter), 200);
  });
  app.openapi(create, async (c) =>
    c.json(await service.create(project(c), c.req.valid("json")), 200),
  );
  app.openapi(retrieve, async (c) =>
    c.json(await service.get(project(c), c.req.valid("param").archive_id), 200),
  );
  app.openapi(update, async (c) => {
    const { archive_id } = c.req.valid("param");
    return c.json(await service.update(project(c), archive_id, c.req.valid("json")), 200);
  });
  app.openapi(remove, async (c) => {
    await service.delete(project(c), c.req.valid("param").archive_id);
    return c.body(null, 204);
  });
  app.openapi(addPassage, async (c) => {
    const { archive_id } = c.req.valid("param");
    const [added] = await service.addPassages(project(c), archive_id, [c.req.valid("json")]);
    return c.json(added as LettaPassage, 200);
  });
  app.openapi(addPassages, async (c) => {
    const { archive_id } = c.req.valid("param");
    const { passages } = c.req.valid("json");
    return c.json(await service.addPassages(project(c), archive_id, passages), 200);
  });
  app.openapi(removePassage, async (c) => {
    const { archive_id, passage_id } = c.req.valid("param");
    await service.deletePassage(project(c), archive_id, passage_id);
    return c.body(null, 204);
  });
  app.openapi(attach, async (c) => {
    const { agent_id, archive_id } = c.req.valid("param");
    return c.json(await service.attach(project(c), agent_id, archive_id), 200);
  });
  app.openapi(detach, async (c) => {
    const { agent_id, archive_id } = c.req.valid("param");
    return c.json(await service.detach(project(c), agent_id, archive_id), 200);
  });
  app.openapi(search, async (c) =>
    c.json(await service.search(project(c), c.req.valid("json")), 200),
  );
}
