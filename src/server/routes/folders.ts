import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ValidationError } from "../../core/errors.js";
import { FreeFormObject } from "../../records/free-form-json.js";
import { withoutControlCharacters } from "../../service/document-text.js";
import type { FolderService } from "../../service/folder-service.js";
import type { AppEnv } from "../auth.js";
import { ErrorBodySchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const Id = z.string().min(1).max(200);
const FolderSchema = z.looseObject({ id: z.string(), name: z.string() });
const FileSchema = z.looseObject({ id: z.string(), source_id: z.string() });
const FolderParam = z.object({ folder_id: Id });
const FileParam = FolderParam.extend({ file_id: Id });

const Text = z.string().max(100_000).nullish();
const CreateFolder = z.object({
  name: z.string().min(1).max(255),
  description: Text,
  instructions: Text,
  metadata: FreeFormObject.nullish(),
  embedding: z.string().max(200).nullish(),
  embedding_chunk_size: z.int().min(1).nullish(),
  embedding_config: z.looseObject({ handle: z.string().max(200).nullish() }).nullish(),
});
const UpdateFolder = CreateFolder.partial().extend({ name: z.string().min(1).max(255).nullish() });

/** Letta's list queries: each route has its own default order and limit. */
const listQuery = (order: "asc" | "desc", limit: number) =>
  z.object({
    after: Id.optional(),
    before: Id.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(limit),
    order: z.enum(["asc", "desc"]).default(order),
    order_by: z.literal("created_at").optional(),
  });
const Bool = z.enum(["true", "false"]).transform((value) => value === "true");
const FileQuery = listQuery("desc", 1000).extend({ include_content: Bool.default(false) });
const UploadQuery = z.object({
  duplicate_handling: z.enum(["skip", "error", "suffix", "replace"]).default("suffix"),
  name: z
    .string()
    .min(1)
    .max(255)
    .refine(
      (name) => withoutControlCharacters(name) === name,
      "a file name has no control characters",
    )
    .optional(),
});

const ERRORS = {
  404: json(ErrorBodySchema, "No such folder or file in this project"),
  422: json(ErrorBodySchema, "Invalid request; `errors` gives each field's path"),
} as const;

const route = <M extends "get" | "post" | "patch" | "delete">(
  method: M,
  path: string,
  summary: string,
) => ({ method, path: `/v1/folders${path}`, tags: ["folders"], summary });

const list = createRoute({
  ...route("get", "", "The project's folders, oldest first by default"),
  request: { query: listQuery("asc", 50).extend({ name: z.string().max(255).optional() }) },
  responses: { 200: json(z.array(FolderSchema), "Folders") },
});
const create = createRoute({
  ...route("post", "", "Create a folder; its name is unique in the project"),
  request: { body: { content: { "application/json": { schema: CreateFolder } }, required: true } },
  responses: {
    200: json(FolderSchema, "The folder"),
    409: json(ErrorBodySchema, "A folder of that name exists"),
    ...ERRORS,
  },
});
const retrieve = createRoute({
  ...route("get", "/{folder_id}", "A folder"),
  request: { params: FolderParam },
  responses: { 200: json(FolderSchema, "The folder"), ...ERRORS },
});
const update = createRoute({
  ...route("patch", "/{folder_id}", "Rename a folder or change its description or instructions"),
  request: {
    params: FolderParam,
    body: { content: { "application/json": { schema: UpdateFolder } }, required: true },
  },
  responses: { 200: json(FolderSchema, "The folder"), ...ERRORS },
});
const remove = createRoute({
  ...route("delete", "/{folder_id}", "Delete a folder with its files, detaching it from agents"),
  request: { params: FolderParam },
  responses: { 200: json(z.null(), "Deleted"), ...ERRORS },
});
const upload = createRoute({
  ...route("post", "/{folder_id}/upload", "Upload a text, markdown or PDF file (multipart `file`)"),
  request: { params: FolderParam, query: UploadQuery },
  responses: {
    200: json(FileSchema, "The file, parsed and chunked (`processing_status: completed`)"),
    400: json(ErrorBodySchema, "The file is not what its type says, or a duplicate (`error`)"),
    413: json(ErrorBodySchema, "The file is too large"),
    415: json(ErrorBodySchema, "A file type Holdfast does not read"),
    ...ERRORS,
  },
});
const agents = createRoute({
  ...route("get", "/{folder_id}/agents", "Ids of the agents the folder is attached to"),
  request: { params: FolderParam, query: listQuery("desc", 50) },
  responses: { 200: json(z.array(z.string()), "Agent ids"), ...ERRORS },
});
const files = createRoute({
  ...route("get", "/{folder_id}/files", "The folder's files, newest first by default"),
  request: { params: FolderParam, query: FileQuery },
  responses: { 200: json(z.array(FileSchema), "Files"), ...ERRORS },
});
const file = createRoute({
  ...route("get", "/{folder_id}/files/{file_id}", "A file of the folder"),
  request: { params: FileParam, query: z.object({ include_content: Bool.default(false) }) },
  responses: { 200: json(FileSchema, "The file"), ...ERRORS },
});
const removeFile = createRoute({
  ...route("delete", "/{folder_id}/{file_id}", "Delete a file, closing it in every agent"),
  request: { params: FileParam },
  responses: { 204: { description: "Deleted" }, ...ERRORS },
});

/** Letta's `/v1/folders` routes: folders, their files and uploads, and their agents. */
export function folderRoutes(app: OpenAPIHono<AppEnv>, service: FolderService): void {
  const project = (c: { get(key: "projectId"): string }) => c.get("projectId");
  app.openapi(list, async (c) => {
    const { name, ...query } = c.req.valid("query");
    return c.json(await service.list(project(c), query, name), 200);
  });
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    const embedding = body.embedding ?? body.embedding_config?.handle ?? null;
    return c.json(await service.create(project(c), { ...body, embedding }), 200);
  });
  app.openapi(retrieve, async (c) =>
    c.json(await service.get(project(c), c.req.valid("param").folder_id), 200),
  );
  app.openapi(update, async (c) => {
    const { embedding: _ignored, ...fields } = c.req.valid("json");
    return c.json(await service.update(project(c), c.req.valid("param").folder_id, fields), 200);
  });
  app.openapi(remove, async (c) => {
    await service.delete(project(c), c.req.valid("param").folder_id);
    return c.json(null, 200);
  });
  app.openapi(upload, async (c) => {
    const form = await c.req.parseBody().catch(() => {
      throw new ValidationError("invalid request", [
        { path: "file", message: "send the file as multipart/form-data field 'file'" },
      ]);
    });
    const sent = form.file;
    if (!(sent instanceof File)) {
      throw new ValidationError("invalid request", [
        { path: "file", message: "the file is missing" },
      ]);
    }
    const query = c.req.valid("query");
    const { file: uploaded, skipped } = await service.upload(
      project(c),
      c.req.valid("param").folder_id,
      {
        fileName: sent.name,
        type: sent.type,
        bytes: new Uint8Array(await sent.arrayBuffer()),
        duplicateHandling: query.duplicate_handling,
        name: query.name,
      },
    );
    if (skipped) c.header("X-Upload-Result", "skipped");
    return c.json(uploaded, 200);
  });
  app.openapi(agents, async (c) => {
    const { folder_id } = c.req.valid("param");
    return c.json(await service.agentsOf(project(c), folder_id, c.req.valid("query")), 200);
  });
  app.openapi(files, async (c) => {
    const { include_content, ...query } = c.req.valid("query");
    const { folder_id } = c.req.valid("param");
    return c.json(await service.listFiles(project(c), folder_id, query, include_content), 200);
  });
  app.openapi(file, async (c) => {
    const { folder_id, file_id } = c.req.valid("param");
    const { include_content } = c.req.valid("query");
    return c.json(await service.getFile(project(c), folder_id, file_id, include_content), 200);
  });
  app.openapi(removeFile, async (c) => {
    const { folder_id, file_id } = c.req.valid("param");
    await service.deleteFile(project(c), folder_id, file_id);
    return c.body(null, 204);
  });
}
