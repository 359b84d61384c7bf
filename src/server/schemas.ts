import { z } from "@hono/zod-openapi";
import { BlockView } from "../records/core-block.js";

/** The body of every error answer; see error-response.ts. */
export const ErrorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  known: z.array(z.string()).optional(),
});

/** Letta's AgentState, documented by its main fields; the rest pass through. */
export const AgentStateSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  agent_type: z.string(),
  system: z.string(),
  tags: z.array(z.string()),
  blocks: z.array(BlockView),
  tools: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  llm_config: z.looseObject({
    model: z.string(),
    model_endpoint_type: z.string(),
    context_window: z.number(),
  }),
});

/** A Letta message of any type, discriminated by `message_type`. */
export const LettaMessageSchema = z.looseObject({
  id: z.string(),
  date: z.string(),
  message_type: z.string(),
});

export const LettaResponseSchema = z.object({
  messages: z.array(LettaMessageSchema),
  stop_reason: z.object({ message_type: z.literal("stop_reason"), stop_reason: z.string() }),
  usage: z.looseObject({ message_type: z.literal("usage_statistics") }),
});

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
