import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ListQuery } from "../../service/requests.js";
import { RunListQuery, type RunService, RunStreamRequest } from "../../service/run-service.js";
import type { AppEnv } from "../auth.js";
import { streamEvents } from "../event-stream.js";
import { AGENT_ERRORS, LettaMessageSchema, RunSchema } from "../schemas.js";
import { FrameMapper } from "../sse-frames.js";

const RunIdParam = z.object({ run_id: z.string().min(1).max(200) });
const ERRORS = {
  ...AGENT_ERRORS,
  404: { ...AGENT_ERRORS[404], description: "No such run (or agent) in this project" },
};

const get = createRoute({
  method: "get",
  path: "/v1/runs/{run_id}",
  tags: ["runs"],
  summary: "A run: status, stop reason, usage, and the verifier's outcome if any",
  request: { params: RunIdParam },
  responses: {
    200: { description: "The run", content: { "application/json": { schema: RunSchema } } },
    ...ERRORS,
  },
});

const list = createRoute({
  method: "get",
  path: "/v1/runs",
  tags: ["runs"],
  summary: "Runs of the project, newest first; filter by `agent_id`, `active`, `statuses`",
  request: { query: RunListQuery },
  responses: {
    200: {
      description: "A page",
      content: { "application/json": { schema: z.array(RunSchema) } },
    },
    ...ERRORS,
  },
});

const messages = createRoute({
  method: "get",
  path: "/v1/runs/{run_id}/messages",
  tags: ["runs"],
  summary: "The messages of a run, in order",
  request: { params: RunIdParam, query: ListQuery },
  responses: {
    200: {
      description: "A page",
      content: { "application/json": { schema: z.array(LettaMessageSchema) } },
    },
    ...ERRORS,
  },
});

const stream = createRoute({
  method: "post",
  path: "/v1/runs/{run_id}/stream",
  tags: ["runs"],
  summary: "Re-attach to a run's stream: the messages after `starting_after`, then the rest live",
  request: {
    params: RunIdParam,
    body: { content: { "application/json": { schema: RunStreamRequest } }, required: false },
  },
  responses: {
    200: {
      description: "Letta's SSE stream of the run",
      content: { "text/event-stream": { schema: z.string() } },
    },
    ...ERRORS,
  },
});

export function runRoutes(app: OpenAPIHono<AppEnv>, runs: RunService): void {
  app.openapi(get, async (c) =>
    c.json(await runs.get(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(list, async (c) =>
    c.json(await runs.list(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(messages, async (c) =>
    c.json(
      await runs.messages(c.get("projectId"), c.req.valid("param").run_id, c.req.valid("query")),
      200,
    ),
  );
  app.openapi(stream, async (c) => {
    const { run_id } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    // An unknown run is a 404 before any stream starts.
    await runs.get(c.get("projectId"), run_id);
    return streamEvents(c, new FrameMapper(false), (onEvent) =>
      runs.stream(c.get("projectId"), run_id, body.starting_after ?? 0, onEvent),
    );
  });
}
