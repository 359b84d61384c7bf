import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../auth.js";
import { body } from "../error-response.js";

/**
 * Letta routes Holdfast refuses by design, each with what to use instead. They answer 422
 * (never 404, which would read as "not built yet", and never 5xx, which clients retry).
 */
const REFUSED: ReadonlyArray<{
  method: "get" | "post" | "patch" | "delete";
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
  {
    method: "get",
    path: "/v1/runs/:run_id/trace",
    reason:
      "Holdfast keeps no OpenTelemetry spans to read back: it exports them to your collector (OTEL_EXPORTER_OTLP_ENDPOINT); a run's timings are GET /v1/runs/{id}/steps and GET /v1/steps/{id}/metrics",
  },
  ...(
    [
      ["patch", "/v1/agents/:agent_id/identities/attach/:identity_id"],
      ["patch", "/v1/agents/:agent_id/identities/detach/:identity_id"],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    reason:
      "identities are not supported by Holdfast (the 1.12 client cannot create one either); mark the agents of a user with tags (PATCH /v1/agents/{id} with tags, then GET /v1/agents?tags=...) or metadata",
  })),
  ...(
    [
      ["get", "/v1/client-side-access-tokens"],
      ["post", "/v1/client-side-access-tokens"],
      ["delete", "/v1/client-side-access-tokens/:token"],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    reason:
      "client-side access tokens are a Letta Cloud feature; Holdfast's bearer tokens are set by the operator (HOLDFAST_TOKENS=token:project), and a project scopes what a token reaches",
  })),
  ...(
    [
      ["get", "/v1/environments"],
      ["get", "/v1/environments/:device_id"],
      ["post", "/v1/environments/:connection_id/messages"],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    reason:
      "environments (Letta Cloud's connected devices) do not exist in Holdfast; send to an agent with POST /v1/agents/{id}/messages, and run tools on the caller's side as client tools (client_tools)",
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
