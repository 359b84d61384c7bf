import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../auth.js";

const Health = z.object({ status: z.literal("ok"), version: z.string() });

const route = createRoute({
  method: "get",
  path: "/v1/health",
  tags: ["health"],
  summary: "Whether the server is up, and its version",
  responses: {
    200: { description: "The server is up", content: { "application/json": { schema: Health } } },
  },
});

export function healthRoutes(app: OpenAPIHono<AppEnv>, version: string): void {
  app.openapi(route, (c) => c.json({ status: "ok" as const, version }, 200));
}
