import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ForkRequest, type ForkService } from "../../service/fork-service.js";
import type { ReplayService } from "../../service/replay-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, AgentStateSchema, ErrorBodySchema } from "../schemas.js";

const CONFLICT = {
  409: {
    description: "It cannot be done faithfully (the plain message says why)",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
} as const;

const ReplaySchema = z.object({
  run_id: z.string(),
  agent_id: z.string(),
  agent_type: z.string(),
  matches: z.boolean(),
  steps: z.int().optional().describe("Decisions replayed, when it matches"),
  complete: z.boolean().optional().describe("Whether the run had ended (else: matches so far)"),
  step: z.int().optional().describe("The first decision that differs (1 = the run's first)"),
  step_id: z.string().nullable().optional(),
  expected: z.string().optional().describe("What the recorded run did there"),
  actual: z.string().optional().describe("What today's code and config decide instead"),
  reason: z.string().optional(),
});

const replay = createRoute({
  method: "post",
  path: "/v1/runs/{run_id}/replay",
  tags: ["runs"],
  summary:
    "Replay a run against today's agent type, tool rules and limits: its first divergent step, or a match",
  description:
    "Drives today's loop over the run's journal (its recorded model responses, tool results and " +
    "approvals). No model is called and no tool runs.",
  request: { params: z.object({ run_id: z.string().min(1).max(200) }) },
  responses: {
    200: {
      description: "The outcome",
      content: { "application/json": { schema: ReplaySchema } },
    },
    ...AGENT_ERRORS,
    ...CONFLICT,
  },
});

const journal = createRoute({
  method: "get",
  path: "/v1/runs/{run_id}/journal",
  tags: ["runs"],
  summary:
    "A run's journal: per step the tools offered, tool_choice and the model's response; tool results and approvals",
  description:
    "What the loop recorded for replay. Not recorded: the full prompt text (system prompt, memory and history as sent).",
  request: { params: z.object({ run_id: z.string().min(1).max(200) }) },
  responses: {
    200: {
      description: "The entries, in order",
      content: {
        "application/json": {
          schema: z.object({
            run_id: z.string(),
            agent_id: z.string(),
            entries: z.array(z.looseObject({ kind: z.string() })),
          }),
        },
      },
    },
    ...AGENT_ERRORS,
  },
});

const fork = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/fork",
  tags: ["agents"],
  summary: "A new agent with this agent's history and memory as of a message or the end of a run",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: ForkRequest } }, required: true },
  },
  responses: {
    200: {
      description: "The new agent",
      content: { "application/json": { schema: AgentStateSchema } },
    },
    ...AGENT_ERRORS,
    ...CONFLICT,
  },
});

export function replayForkRoutes(
  app: OpenAPIHono<AppEnv>,
  services: { replay: ReplayService; forks: ForkService },
): void {
  app.openapi(replay, async (c) =>
    c.json(await services.replay.replay(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(journal, async (c) =>
    c.json(await services.replay.journal(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(fork, async (c) => {
    const { agent_id } = c.req.valid("param");
    const forked = await services.forks.fork(c.get("projectId"), agent_id, c.req.valid("json"));
    return c.json(forked, 200);
  });
}
