import { z } from "zod";

/**
 * How much harm a tool can do, by its worst side effect:
 * - `read`: no side effects (reads local files, memory, or the web);
 * - `write`: changes state the agent owns (memory, files in its workspace);
 * - `exec`: runs arbitrary code or commands, or starts other agents;
 * - `network`: sends data to systems outside Holdfast (posts, emails, webhooks).
 */
export const RiskClass = z.enum(["read", "write", "exec", "network"]);
export type RiskClass = z.infer<typeof RiskClass>;

/**
 * A feature of the agent type that a tool needs; the tool is offered only when the type has it.
 * `heartbeat` tools need heartbeats on; memory tools need the matching memory switch.
 */
export const ToolRequirement = z.enum([
  "heartbeat",
  "core_memory",
  "archival_memory",
  "conversation_search",
]);
export type ToolRequirement = z.infer<typeof ToolRequirement>;

export const ToolName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, "a tool name is 1-64 letters, digits, _ or -");

/** A JSON Schema object describing a tool's arguments, as model providers expect it. */
export const ParameterSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), z.record(z.string(), z.unknown())),
  required: z.array(z.string()).default([]),
});
export type ParameterSchema = z.infer<typeof ParameterSchema>;

export const ToolDeclaration = z.strictObject({
  name: ToolName,
  description: z.string().min(1),
  parameters: ParameterSchema,
  risk: RiskClass,
  requires: ToolRequirement.optional(),
});
export type ToolDeclaration = z.infer<typeof ToolDeclaration>;

/** Declares a tool; throws if the declaration is malformed (declarations are code, not input). */
export function defineTool(declaration: z.input<typeof ToolDeclaration>): ToolDeclaration {
  return ToolDeclaration.parse(declaration);
}
