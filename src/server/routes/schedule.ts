import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  CreateScheduleRequest,
  ScheduleListQuery,
  type ScheduleService,
} from "../../service/schedule-service.js";
import type { AppEnv } from "../auth.js";
import { AGENT_ERRORS, AgentIdParam } from "../schemas.js";

const ScheduleParams = AgentIdParam.extend({
  scheduled_message_id: z.string().min(1).max(200),
});
const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ERRORS = {
  ...AGENT_ERRORS,
  404: { ...AGENT_ERRORS[404], description: "No such agent or scheduled message here" },
};
const Scheduled = z.looseObject({ id: z.string(), agent_id: z.string() });

const create = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/schedule",
  tags: ["schedule"],
  summary: "Schedule a message: once at `scheduled_at` (Unix ms) or on a cron expression (UTC)",
  request: {
    params: AgentIdParam,
    body: { content: { "application/json": { schema: CreateScheduleRequest } }, required: true },
  },
  responses: { 200: json(z.looseObject({ id: z.string() }), "Scheduled"), ...ERRORS },
});

const list = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/schedule",
  tags: ["schedule"],
  summary: "The agent's scheduled messages, in creation order",
  request: { params: AgentIdParam, query: ScheduleListQuery },
  responses: {
    200: json(z.looseObject({ scheduled_messages: z.array(Scheduled) }), "A page"),
    ...ERRORS,
  },
});

const get = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/schedule/{scheduled_message_id}",
  tags: ["schedule"],
  summary: "A scheduled message",
  request: { params: ScheduleParams },
  responses: { 200: json(Scheduled, "The scheduled message"), ...ERRORS },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/agents/{agent_id}/schedule/{scheduled_message_id}",
  tags: ["schedule"],
  summary: "Cancel a scheduled message (a firing under way still runs)",
  request: { params: ScheduleParams },
  responses: { 200: json(z.object({ success: z.literal(true) }), "Deleted"), ...ERRORS },
});

/** Letta's scheduled messages of an agent. */
export function scheduleRoutes(app: OpenAPIHono<AppEnv>, schedules: ScheduleService): void {
  app.openapi(create, async (c) =>
    c.json(
      await schedules.create(
        c.get("projectId"),
        c.req.valid("param").agent_id,
        c.req.valid("json"),
      ),
      200,
    ),
  );
  app.openapi(list, async (c) =>
    c.json(
      await schedules.list(c.get("projectId"), c.req.valid("param").agent_id, c.req.valid("query")),
      200,
    ),
  );
  app.openapi(get, async (c) => {
    const { agent_id, scheduled_message_id } = c.req.valid("param");
    return c.json(await schedules.get(c.get("projectId"), agent_id, scheduled_message_id), 200);
  });
  app.openapi(remove, async (c) => {
    const { agent_id, scheduled_message_id } = c.req.valid("param");
    return c.json(await schedules.delete(c.get("projectId"), agent_id, scheduled_message_id), 200);
  });
}
