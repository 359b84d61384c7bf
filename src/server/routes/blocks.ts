import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { BlockPatchBody, BlockView, CreateBlockBody } from "../../records/core-block.js";
import { BlockListQuery, type BlockService } from "../../service/block-service.js";
import { ListQuery } from "../../service/requests.js";
import type { AppEnv } from "../auth.js";
import { AgentStateSchema, ErrorBodySchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const BLOCK_ERRORS = {
  404: json(ErrorBodySchema, "No such block in this project"),
  409: json(ErrorBodySchema, "An agent sharing the block already has a block with that label"),
  422: json(ErrorBodySchema, "Invalid request; `errors` gives each field's path"),
} as const;

const BlockIdParam = z.object({ block_id: z.string().min(1).max(200) });
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

const listBlocks = createRoute({
  method: "get",
  path: "/v1/blocks",
  tags: ["blocks"],
  summary:
    "The project's blocks, oldest first; Letta's filters (label, searches, tags, agent counts)",
  request: { query: BlockListQuery },
  responses: { 200: json(z.array(BlockView), "A page of blocks"), ...BLOCK_ERRORS },
});

const createBlock = createRoute({
  method: "post",
  path: "/v1/blocks",
  tags: ["blocks"],
  summary: "Create a standalone block, to attach to agents",
  request: body(CreateBlockBody),
  responses: { 200: json(BlockView, "The new block"), ...BLOCK_ERRORS },
});

const retrieveBlock = createRoute({
  method: "get",
  path: "/v1/blocks/{block_id}",
  tags: ["blocks"],
  summary: "One block",
  request: { params: BlockIdParam },
  responses: { 200: json(BlockView, "The block"), ...BLOCK_ERRORS },
});

const modifyBlock = createRoute({
  method: "patch",
  path: "/v1/blocks/{block_id}",
  tags: ["blocks"],
  summary: "Edit a block (label included); every agent sharing it sees it on its next turn",
  request: { params: BlockIdParam, ...body(BlockPatchBody) },
  responses: { 200: json(BlockView, "The block"), ...BLOCK_ERRORS },
});

const deleteBlock = createRoute({
  method: "delete",
  path: "/v1/blocks/{block_id}",
  tags: ["blocks"],
  summary: "Delete a block, detaching it from every agent",
  request: { params: BlockIdParam },
  responses: { 200: json(z.object({}), "Deleted"), ...BLOCK_ERRORS },
});

const blockAgents = createRoute({
  method: "get",
  path: "/v1/blocks/{block_id}/agents",
  tags: ["blocks"],
  summary: "The agents a block is attached to",
  request: { params: BlockIdParam, query: ListQuery },
  responses: { 200: json(z.array(AgentStateSchema), "A page of agents"), ...BLOCK_ERRORS },
});

/** Letta's `/v1/blocks`: blocks as entities of the project, shared by agents. */
export function blockRoutes(app: OpenAPIHono<AppEnv>, blocks: BlockService): void {
  app.openapi(listBlocks, async (c) =>
    c.json(await blocks.list(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(createBlock, async (c) =>
    c.json(await blocks.create(c.get("projectId"), c.req.valid("json")), 200),
  );
  app.openapi(retrieveBlock, async (c) =>
    c.json(await blocks.retrieve(c.get("projectId"), c.req.valid("param").block_id), 200),
  );
  app.openapi(modifyBlock, async (c) => {
    const { block_id } = c.req.valid("param");
    return c.json(await blocks.modify(c.get("projectId"), block_id, c.req.valid("json")), 200);
  });
  app.openapi(deleteBlock, async (c) => {
    await blocks.delete(c.get("projectId"), c.req.valid("param").block_id);
    return c.json({}, 200);
  });
  app.openapi(blockAgents, async (c) => {
    const { block_id } = c.req.valid("param");
    return c.json(await blocks.agents(c.get("projectId"), block_id, c.req.valid("query")), 200);
  });
}
