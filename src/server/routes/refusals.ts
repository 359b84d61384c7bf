import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../auth.js";
import { body } from "../error-response.js";

/**
 * Letta routes Holdfast refuses by design, each with what to use instead. They answer 422
 * (never 404, which would read as "not built yet", and never 5xx, which clients retry).
 */
const REFUSED: ReadonlyArray<{
  method: "post" | "patch" | "delete";
  path: string;
  reason: string;
}> = [
  ...(
    [
      ["post", "/v1/templates"],
      ["patch", "/v1/templates/:name"],
      ["delete", "/v1/templates/:name"],
      ["post", "/v1/templates/:name/save"],
      ["post", "/v1/templates/:name/rollback"],
      ["post", "/v1/templates/:name/agents"],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    reason:
      "templates are not supported by Holdfast; an agent type in holdfast.yaml is a reusable agent definition (GET /v1/agent-types), and a chain (/v1/chains) runs several agents together",
  })),
];

export function refusedRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const route of REFUSED) {
    app.on(route.method.toUpperCase(), route.path, (c) =>
      c.json(
        { ...body("NOT_SUPPORTED", route.reason), errors: [{ path: "", message: route.reason }] },
        422,
      ),
    );
  }
}
