import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { CatalogService } from "../../service/catalog-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const tags = createRoute({
  method: "get",
  path: "/v1/tags",
  tags: ["tags"],
  summary: "The tags of the project's agents, alphabetically; page with `after`/`before` (a tag)",
  request: {
    query: z.object({
      after: z.string().max(200).optional(),
      before: z.string().max(200).optional(),
      limit: z.coerce.number().int().min(1).max(10_000).optional(),
      order: z.enum(["asc", "desc"]).optional(),
      order_by: z.literal("name").optional(),
      name: z.string().max(200).optional(),
      query_text: z.string().max(200).optional(),
    }),
  },
  responses: { 200: json(z.array(z.string()), "Tags"), 422: AGENT_ERRORS[422] },
});

const ModelSchema = z.looseObject({
  handle: z.string(),
  name: z.string(),
  model: z.string(),
  provider_name: z.string(),
  provider_type: z.string(),
  model_endpoint_type: z.string(),
  context_window: z.number(),
  max_context_window: z.number(),
});

const models = createRoute({
  method: "get",
  path: "/v1/models",
  tags: ["models"],
  summary:
    "The model handles this server can use now (configured providers, handles in config, sim)",
  request: {
    query: z.object({
      provider_name: z.string().max(100).optional(),
      provider_type: z.string().max(100).optional(),
    }),
  },
  responses: { 200: json(z.array(ModelSchema), "Models"), 422: AGENT_ERRORS[422] },
});

const ToolSearchBody = z.object({
  query: z.string().max(10_000).nullish(),
  search_mode: z.enum(["vector", "fts", "hybrid"]).optional(),
  tool_types: z.array(z.string().max(100)).max(50).nullish(),
  tags: z.array(z.string().max(200)).max(50).nullish(),
  limit: z.int().min(1).max(1000).optional(),
});

const searchTools = createRoute({
  method: "post",
  path: "/v1/tools/search",
  tags: ["tools"],
  summary: "Tools ranked by full text over name, description and tags (no tool embeddings)",
  request: {
    body: { content: { "application/json": { schema: ToolSearchBody } }, required: true },
  },
  responses: {
    200: json(
      z.array(z.looseObject({ tool: z.unknown(), combined_score: z.number() })),
      "Ranked tools",
    ),
    422: AGENT_ERRORS[422],
  },
});

export function catalogRoutes(app: OpenAPIHono<AppEnv>, catalog: CatalogService): void {
  app.openapi(tags, async (c) => {
    const { name, query_text, order_by: _, ...page } = c.req.valid("query");
    return c.json(
      await catalog.tags(c.get("projectId"), { ...page, text: name ?? query_text }),
      200,
    );
  });
  app.openapi(models, (c) => {
    const { provider_name, provider_type } = c.req.valid("query");
    const category = [
      ...(c.req.queries("provider_category") ?? []),
      ...(c.req.queries("provider_category[]") ?? []),
    ];
    return c.json(
      catalog.models({ providerName: provider_name, providerType: provider_type, category }),
      200,
    );
  });
  app.openapi(searchTools, (c) => c.json(catalog.searchTools(c.req.valid("json")), 200));
}
