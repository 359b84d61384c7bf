import { z } from "zod";

/**
 * An MCP server added through the API, as stored so that it is reconnected at start-up.
 * `config` is the server's connection config (checked by the tools layer when it is read);
 * it holds secrets (`env`, `headers`) that no API response shows.
 */
export const McpServerRecord = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  config: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServerRecord = z.infer<typeof McpServerRecord>;
