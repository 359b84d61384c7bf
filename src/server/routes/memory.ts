import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { BlockView } from "../../records/core-block.js";
import {
  BlockPatch,
  CreatePassageRequest,
  Instant,
  instantMs,
  type MemoryService,
} from "../../service/memory-service.js";
import { ListQuery } from "../../service/requests.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, AgentStateSchema, ErrorBodySchema } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const Id = z.string().min(1).max(200);
const Tag = z.string().min(1).max(200);

const PassageSchema = z.looseObject({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  created_at: z.string(),
});

const SearchResultSchema = z.object({
  count: z.number(),
  results: z.array(
    z.object({
      id: z.string(),
      content: z.string(),
      timestamp: z.string(),
      tags: z.array(z.string()),
    }),
  ),
});

const PassageListQuery = z.object({
  after: Id.optional(),
  before: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  ascending: z.enum(["true", "false"]).default("true"),
  search: z.string().max(10_000).optional(),
});

/** Tags arrive as repeated keys (`tags=a&tags=b`): one key is a string, several an array. */
const PassageSearchQuery = z.object({
  query: z.string().min(1).max(10_000),
  top_k: z.coerce.number().int().min(1).max(1000).default(10),
  tags: z.union([Tag, z.array(Tag).max(100)]).optional(),
  tag_match_mode: z.enum(["any", "all"]).default("any"),
  start_datetime: Instant.optional(),
  end_datetime: Instant.optional(),
});

const CONFLICT = {
  409: json(ErrorBodySchema, "The agent already has a block with that label"),
} as const;

const blocksPath = "/v1/agents/{agent_id}/core-memory/blocks";
const archivalPath = "/v1/agents/{agent_id}/archival-memory";
const LabelParam = AgentIdParam.extend({ block_label: Id });
const BlockIdParam = AgentIdParam.extend({ block_id: Id });

const listBlocks = createRoute({
  method: "get",
  path: blocksPath,
  tags: ["memory"],
  summary: "An agent's core-memory blocks; page with `after`/`before` relative to `order`",
  request: { params: AgentIdParam, query: ListQuery },
  responses: { 200: json(z.array(BlockView), "A page of blocks"), ...AGENT_ERRORS },
});

const getBlock = createRoute({
  method: "get",
  path: `${blocksPath}/{block_label}`,
  tags: ["memory"],
  summary: "One block, by label",
  request: { params: LabelParam },
  responses: { 200: json(BlockView, "The block"), ...AGENT_ERRORS },
});

const updateBlock = createRoute({
  method: "patch",
  path: `${blocksPath}/{block_label}`,
  tags: ["memory"],
  summary: "Edit a block's value, limit, description or read-only flag (within its limit)",
  request: {
    params: LabelParam,
    body: { content: { "application/json": { schema: BlockPatch } }, required: true },
  },
  responses: { 200: json(BlockView, "The updated block"), ...AGENT_ERRORS },
});

const blockLink = (action: "attach" | "detach", summary: string) =>
  createRoute({
    method: "patch",
    path: `${blocksPath}/${action}/{block_id}`,
    tags: ["memory"],
    summary,
    request: { params: BlockIdParam },
    responses: { 200: json(AgentStateSchema, "The agent"), ...AGENT_ERRORS, ...CONFLICT },
  });

const attachBlock = blockLink("attach", "Attach a block of the project (it is shared, not copied)");
const detachBlock = blockLink("detach", "Detach a block from the agent (the block stays)");

const insertPassage = createRoute({
  method: "post",
  path: archivalPath,
  tags: ["memory"],
  summary: "Insert a passage into the agent's archival memory",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: CreatePassageRequest } }, required: true },
  },
  responses: { 200: json(z.array(PassageSchema), "The new passage"), ...AGENT_ERRORS },
});

const listPassages = createRoute({
  method: "get",
  path: archivalPath,
  tags: ["memory"],
  summary: "Archival passages, oldest first unless `ascending=false`; `search` filters by words",
  request: { params: AgentIdParam, query: PassageListQuery },
  responses: { 200: json(z.array(PassageSchema), "Passages"), ...AGENT_ERRORS },
});

const searchPassages = createRoute({
  method: "get",
  path: `${archivalPath}/search`,
  tags: ["memory"],
  summary:
    "Search of archival memory (BM25 fused with vectors when an embedding model is set), filtered by tags and creation time",
  request: { params: AgentIdParam, query: PassageSearchQuery },
  responses: { 200: json(SearchResultSchema, "Ranked results"), ...AGENT_ERRORS },
});

const deletePassage = createRoute({
  method: "delete",
  path: `${archivalPath}/{memory_id}`,
  tags: ["memory"],
  summary: "Delete an archival passage",
  request: { params: AgentIdParam.extend({ memory_id: Id }) },
  responses: { 200: json(z.object({}), "Deleted"), ...AGENT_ERRORS },
});

/** Core-memory block and archival-memory routes. */
export function memoryRoutes(app: OpenAPIHono<AppEnv>, memory: MemoryService): void {
  app.openapi(listBlocks, async (c) => {
    const { agent_id } = c.req.valid("param");
    return c.json(await memory.listBlocks(c.get("projectId"), agent_id, c.req.valid("query")), 200);
  });
  app.openapi(getBlock, async (c) => {
    const { agent_id, block_label } = c.req.valid("param");
    return c.json(await memory.getBlock(c.get("projectId"), agent_id, block_label), 200);
  });
  app.openapi(updateBlock, async (c) => {
    const { agent_id, block_label } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await memory.updateBlock(c.get("projectId"), agent_id, block_label, body), 200);
  });
  app.openapi(attachBlock, async (c) => {
    const { agent_id, block_id } = c.req.valid("param");
    return c.json(await memory.attachBlock(c.get("projectId"), agent_id, block_id), 200);
  });
  app.openapi(detachBlock, async (c) => {
    const { agent_id, block_id } = c.req.valid("param");
    return c.json(await memory.detachBlock(c.get("projectId"), agent_id, block_id), 200);
  });
  app.openapi(insertPassage, async (c) => {
    const { agent_id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await memory.insertPassage(c.get("projectId"), agent_id, body), 200);
  });
  app.openapi(listPassages, async (c) => {
    const { agent_id } = c.req.valid("param");
    const { ascending, ...page } = c.req.valid("query");
    const options = { ...page, ascending: ascending === "true" };
    return c.json(await memory.listPassages(c.get("projectId"), agent_id, options), 200);
  });
  app.openapi(searchPassages, async (c) => {
    const { agent_id } = c.req.valid("param");
    const query = c.req.valid("query");
    const { start_datetime: start, end_datetime: end } = query;
    const options = {
      query: query.query,
      topK: query.top_k,
      tags: typeof query.tags === "string" ? [query.tags] : (query.tags ?? []),
      tagMatchMode: query.tag_match_mode,
      startMs: start === undefined ? undefined : instantMs(start),
      endMs: end === undefined ? undefined : instantMs(end),
    };
    return c.json(await memory.searchPassages(c.get("projectId"), agent_id, options), 200);
  });
  app.openapi(deletePassage, async (c) => {
    const { agent_id, memory_id } = c.req.valid("param");
    await memory.deletePassage(c.get("projectId"), agent_id, memory_id);
    return c.json({}, 200);
  });
}
