import { z } from "zod";
import { FreeFormObject } from "./free-form-json.js";

/**
 * A tool the caller runs itself (Letta's `client_tools` entry). It is offered to the model for
 * one run; a call of it stops the run until the caller sends the call's result. Kept in the
 * session checkpoint, so a run interrupted by a crash still knows its client tools.
 */
export const ClientTool = z.object({
  name: z
    .string()
    .regex(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, "a tool name is 1-64 letters, digits, _ or -"),
  description: z.string().max(10_000).nullish(),
  /** JSON Schema of the arguments: an object schema (no schema means no arguments). */
  parameters: FreeFormObject.nullish(),
});
export type ClientTool = z.infer<typeof ClientTool>;
