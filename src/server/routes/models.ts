import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { HoldfastConfig } from "../../config/config-file.js";
import { configuredEmbeddings, embeddingModelView } from "../../service/embedding-views.js";
import type { AppEnv } from "../auth.js";

const EmbeddingModel = z.object({
  handle: z.string(),
  name: z.string(),
  display_name: z.string(),
  provider_name: z.string(),
  provider_type: z.string(),
  embedding_model: z.string(),
  embedding_endpoint_type: z.string(),
  embedding_dim: z.int(),
});

const listEmbeddings = createRoute({
  method: "get",
  path: "/v1/models/embedding",
  tags: ["models"],
  summary:
    "The embedding models the config names (defaults and agent types); empty when search is full-text only",
  responses: {
    200: {
      description: "Embedding models",
      content: { "application/json": { schema: z.array(EmbeddingModel.passthrough()) } },
    },
  },
});

export function modelRoutes(app: OpenAPIHono<AppEnv>, config: HoldfastConfig): void {
  app.openapi(listEmbeddings, (c) =>
    c.json(configuredEmbeddings(config).map(embeddingModelView), 200),
  );
}
