import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { SessionState } from "../../records/session-state.js";
import type { SessionService } from "../../service/session-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam, LettaResponseSchema } from "../schemas.js";

const SessionParams = AgentIdParam.extend({ session_id: z.string().min(1).max(200) });

const resume = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/resume",
  tags: ["sessions"],
  summary: "Carry the agent's session on from its last checkpoint",
  request: { params: AgentIdParam },
  responses: {
    200: {
      description: "What the resumed turn produced",
      content: {
        "application/json": { schema: LettaResponseSchema.extend({ session: SessionState }) },
      },
    },
    ...AGENT_ERRORS,
  },
});

const get = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/sessions/{session_id}",
  tags: ["sessions"],
  summary: "The session's checkpoint: phase, iteration, pending tool calls, pause, stop reason",
  request: { params: SessionParams },
  responses: {
    200: {
      description: "The checkpoint",
      content: { "application/json": { schema: SessionState } },
    },
    ...AGENT_ERRORS,
  },
});

const transfer = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/sessions/{session_id}/transfer",
  tags: ["sessions"],
  summary: "Hand the session to another (idle) agent of the same project",
  request: {
    params: SessionParams,
    body: {
      content: {
        "application/json": { schema: z.object({ target_agent_id: z.string().min(1).max(200) }) },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: "The session, now the target's",
      content: { "application/json": { schema: SessionState } },
    },
    409: { description: "The target is busy" },
    ...AGENT_ERRORS,
  },
});

const end = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/sessions/{session_id}/end",
  tags: ["sessions"],
  summary:
    "End the (idle) session: a `session` agent forgets its history, a `learning` agent writes what it learned",
  request: { params: SessionParams },
  responses: {
    200: {
      description: "The checkpoint of the new session",
      content: { "application/json": { schema: SessionState } },
    },
    409: { description: "The agent is in a turn" },
    ...AGENT_ERRORS,
  },
});

export function sessionRoutes(app: OpenAPIHono<AppEnv>, sessions: SessionService): void {
  app.openapi(resume, async (c) =>
    c.json(await sessions.resume(c.get("projectId"), c.req.valid("param").agent_id), 200),
  );
  app.openapi(get, async (c) => {
    const { agent_id, session_id } = c.req.valid("param");
    return c.json(await sessions.get(c.get("projectId"), agent_id, session_id), 200);
  });
  app.openapi(end, async (c) => {
    const { agent_id, session_id } = c.req.valid("param");
    return c.json(await sessions.end(c.get("projectId"), agent_id, session_id), 200);
  });
  app.openapi(transfer, async (c) => {
    const { agent_id, session_id } = c.req.valid("param");
    const { target_agent_id } = c.req.valid("json");
    return c.json(
      await sessions.transfer(c.get("projectId"), agent_id, session_id, target_agent_id),
      200,
    );
  });
}
