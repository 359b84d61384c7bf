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

/**
 * `schema` named `name` in the document. A schema made before `@hono/zod-openapi` loaded has no
 * `.openapi` of its own (zod copies methods when it makes a schema), so the method is called
 * from the prototype the library extends.
 */
export function named<T extends z.ZodType>(schema: T, name: string): T {
  return z.ZodType.prototype.openapi.call(schema, name) as T;
}

/** Letta's AgentState. */
export const AgentStateSchema = named(AgentStateView, "AgentState");

/** A Letta message of any type, discriminated by `message_type`. */
export const LettaMessageSchema = named(LettaMessage, "LettaMessage");

export const LettaResponseSchema = named(LettaResponse, "LettaResponse");

/** Letta's Run, Step, a run's usage and Tool. */
export const RunSchema = named(LettaRun, "Run");
export const StepSchema = named(LettaStep, "Step");
export const RunUsageSchema = named(LettaRunUsage, "RunUsage");
export const ToolSchema = named(LettaTool, "Tool");

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
