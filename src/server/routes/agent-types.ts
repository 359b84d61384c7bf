import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { HoldfastConfig } from "../../config/config-file.js";
import { NotFoundError } from "../../core/errors.js";
import { AgentType } from "../../types/agent-type.js";
import { effectiveCapabilities } from "../../types/capabilities.js";
import { EffectiveCapabilities } from "../../types/capabilities-schema.js";
import type { AppEnv } from "../auth.js";
import { ErrorBodySchema } from "../schemas.js";

/** An agent type as the API shows it: its settings and what an agent of it may do. */
const AgentTypeView = AgentType.extend({ capabilities: EffectiveCapabilities });

const listRoute = createRoute({
  method: "get",
  path: "/v1/agent-types",
  tags: ["agent types"],
  summary: "Every agent type: the built-ins and those from the config file",
  responses: {
    200: {
      description: "The agent types, in registration order",
      content: { "application/json": { schema: z.array(AgentTypeView) } },
    },
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/v1/agent-types/{name}",
  tags: ["agent types"],
  summary: "One agent type with its effective capabilities",
  request: { params: z.object({ name: z.string().min(1).max(200) }) },
  responses: {
    200: {
      description: "The agent type",
      content: { "application/json": { schema: AgentTypeView } },
    },
    404: {
      description: "No such type",
      content: { "application/json": { schema: ErrorBodySchema } },
    },
  },
});

export function agentTypeRoutes(app: OpenAPIHono<AppEnv>, config: HoldfastConfig): void {
  const view = (type: AgentType) => ({
    ...type,
    capabilities: effectiveCapabilities(type, {}, config.catalogue),
  });
  app.openapi(listRoute, (c) => c.json(config.registry.list().map(view), 200));
  app.openapi(getRoute, (c) => {
    const { name } = c.req.valid("param");
    const type = config.registry.get(name);
    if (!type) throw new NotFoundError("agent type", name, config.registry.names());
    return c.json(view(type), 200);
  });
}
