import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { HoldfastConfig } from "../config/config-file.js";
import { ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import { body, errorResponse } from "./error-response.js";
import { agentTypeRoutes } from "./routes/agent-types.js";
import { healthRoutes } from "./routes/health.js";

export interface AppOptions {
  config: HoldfastConfig;
  version: string;
  /** Called with every unexpected error before it becomes a 500. */
  onUnexpectedError?: (error: unknown) => void;
}

/**
 * The HTTP application: every route, validated by zod schemas that also generate
 * `/openapi.json`. It holds no sockets; `serve.ts` binds it to a port.
 */
export function createApp(options: AppOptions): OpenAPIHono {
  const log = options.onUnexpectedError ?? (() => {});
  const app = new OpenAPIHono({
    strict: false,
    defaultHook: (result) => {
      if (!result.success)
        throw new ValidationError("invalid request", fieldErrorsFromZod(result.error));
    },
  });
  app.onError((error, c) => errorResponse(c, error, log));
  app.notFound((c) => c.json(body("NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`), 404));

  healthRoutes(app, options.version);
  agentTypeRoutes(app, options.config);

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Holdfast",
      version: options.version,
      description: "Stateful AI agents: Letta-compatible REST + SSE, durable, typed.",
    },
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));
  return app;
}
