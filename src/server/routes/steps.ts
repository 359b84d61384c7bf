import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MessageService } from "../../service/message-service.js";
import { ListQuery, SendMessagesRequest } from "../../service/requests.js";
import {
  StepFeedbackRequest,
  StepListQuery,
  StepMessagesQuery,
  type StepService,
} from "../../service/step-service.js";
import type { AppEnv } from "../auth.js";
import {
  AGENT_ERRORS,
  AgentIdParam,
  LettaMessageSchema,
  RunSchema,
  RunUsageSchema,
  StepSchema,
} from "../schemas.js";

const StepIdParam = z.object({ step_id: z.string().min(1).max(200) });
const RunIdParam = z.object({ run_id: z.string().min(1).max(200) });
const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ERRORS = {
  ...AGENT_ERRORS,
  404: { ...AGENT_ERRORS[404], description: "No such step, run or agent in this project" },
};

const getStep = createRoute({
  method: "get",
  path: "/v1/steps/{step_id}",
  tags: ["steps"],
  summary: "A step: model, tokens, latency, queue wait, stop reason, tool calls, cost",
  request: { params: StepIdParam },
  responses: { 200: json(StepSchema, "The step"), ...ERRORS },
});

const listSteps = createRoute({
  method: "get",
  path: "/v1/steps",
  tags: ["steps"],
  summary:
    "Steps of the project; filter by `agent_id`, `run_id`, `model`, `start_date`, `end_date`",
  request: { query: StepListQuery },
  responses: { 200: json(z.array(StepSchema), "A page"), ...ERRORS },
});

const runSteps = createRoute({
  method: "get",
  path: "/v1/runs/{run_id}/steps",
  tags: ["runs"],
  summary: "The steps of a run",
  request: { params: RunIdParam, query: ListQuery },
  responses: { 200: json(z.array(StepSchema), "A page"), ...ERRORS },
});

const runUsage = createRoute({
  method: "get",
  path: "/v1/runs/{run_id}/usage",
  tags: ["runs"],
  summary: "A run's tokens and cost (null cost when a model that answered has no price)",
  request: { params: RunIdParam },
  responses: { 200: json(RunUsageSchema, "Usage"), ...ERRORS },
});

const sendAsync = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/messages/async",
  tags: ["messages"],
  summary: "Send messages as a background run; answers with the run once it started",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: SendMessagesRequest } }, required: true },
  },
  responses: {
    200: json(RunSchema, "The run, running in the background"),
    409: { description: "An approval is pending (PENDING_APPROVAL)" },
    ...AGENT_ERRORS,
  },
});

const stepMessages = createRoute({
  method: "get",
  path: "/v1/steps/{step_id}/messages",
  tags: ["steps"],
  summary: "The messages a step made, oldest first",
  request: { params: StepIdParam, query: StepMessagesQuery },
  responses: { 200: json(z.array(LettaMessageSchema), "A page"), ...ERRORS },
});

const stepMetrics = createRoute({
  method: "get",
  path: "/v1/steps/{step_id}/metrics",
  tags: ["steps"],
  summary: "A step's timings in nanoseconds: model call, tools, the step",
  request: { params: StepIdParam },
  responses: { 200: json(z.looseObject({ id: z.string() }), "Letta's StepMetrics"), ...ERRORS },
});

const stepTrace = createRoute({
  method: "get",
  path: "/v1/steps/{step_id}/trace",
  tags: ["steps"],
  summary:
    "Always null: Holdfast keeps no provider request and response bodies (Letta answers null with provider tracing off)",
  request: { params: StepIdParam },
  responses: { 200: json(z.null(), "null"), ...ERRORS },
});

const stepFeedback = createRoute({
  method: "patch",
  path: "/v1/steps/{step_id}/feedback",
  tags: ["steps"],
  summary: "Rate a step `positive` or `negative` (null clears); `tags` replace the step's tags",
  request: {
    params: StepIdParam,
    body: { content: { "application/json": { schema: StepFeedbackRequest } }, required: true },
  },
  responses: { 200: json(StepSchema, "The step"), ...ERRORS },
});

/** Steps, a run's steps and usage, and background runs (`messages/async`). */
export function stepRoutes(
  app: OpenAPIHono<AppEnv>,
  steps: StepService,
  messages: MessageService,
): void {
  app.openapi(getStep, async (c) =>
    c.json(await steps.get(c.get("projectId"), c.req.valid("param").step_id), 200),
  );
  app.openapi(stepMessages, async (c) =>
    c.json(
      await steps.messages(c.get("projectId"), c.req.valid("param").step_id, c.req.valid("query")),
      200,
    ),
  );
  app.openapi(stepMetrics, async (c) =>
    c.json(await steps.metrics(c.get("projectId"), c.req.valid("param").step_id), 200),
  );
  app.openapi(stepTrace, async (c) => {
    await steps.get(c.get("projectId"), c.req.valid("param").step_id);
    return c.json(null, 200);
  });
  app.openapi(stepFeedback, async (c) =>
    c.json(
      await steps.feedback(c.get("projectId"), c.req.valid("param").step_id, c.req.valid("json")),
      200,
    ),
  );
  app.openapi(listSteps, async (c) =>
    c.json(await steps.list(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(runSteps, async (c) =>
    c.json(
      await steps.ofRun(c.get("projectId"), c.req.valid("param").run_id, c.req.valid("query")),
      200,
    ),
  );
  app.openapi(runUsage, async (c) =>
    c.json(await steps.usage(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(sendAsync, async (c) =>
    c.json(
      await messages.sendAsync(
        c.get("projectId"),
        c.req.valid("param").agent_id,
        c.req.valid("json"),
      ),
      200,
    ),
  );
}
