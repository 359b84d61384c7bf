import { z } from "@hono/zod-openapi";
import { LettaTool } from "../records/agent-state.js";
import { LettaMessage, LettaResponse } from "../records/letta-message.js";
import { LettaRun, LettaRunUsage, LettaStep } from "../records/letta-run.js";
import { AgentStateView } from "../service/letta-views.js";

/** The body of every error answer; see error-response.ts. */
export const ErrorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  known: z.array(z.string()).optional(),
});

/*
 * Responses are documented by the schemas their views are typed by (src/records/), named so
 * that a client generated from `/openapi.json` gets these types by name.
 */

/** Letta's AgentState. */
export const AgentStateSchema = AgentStateView.openapi("AgentState");

/** A Letta message of any type, discriminated by `message_type`. */
export const LettaMessageSchema = LettaMessage.openapi("LettaMessage");

export const LettaResponseSchema = LettaResponse.openapi("LettaResponse");

/** Letta's Run, Step, a run's usage and Tool. */
export const RunSchema = LettaRun.openapi("Run");
export const StepSchema = LettaStep.openapi("Step");
export const RunUsageSchema = LettaRunUsage.openapi("RunUsage");
export const ToolSchema = LettaTool.openapi("Tool");

export const AgentIdParam = z.object({ agent_id: z.string().min(1).max(200) });

/** Responses every agent route may give besides its success. */
export const AGENT_ERRORS = {
  404: {
    description: "No such agent in this project",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
  422: {
    description: "Invalid request; `errors` gives each field's path",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
} as const;
