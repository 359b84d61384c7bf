import { z } from "@hono/zod-openapi";

/** The body of every error answer; see error-response.ts. */
export const ErrorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  known: z.array(z.string()).optional(),
});
