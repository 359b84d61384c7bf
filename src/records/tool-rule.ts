import { z } from "zod";

/** Letta's tool rules, by their `type`, with `name` for the tools they name. */
function toolRules(name: z.ZodString, children: z.ZodArray<z.ZodString>) {
  return z.discriminatedUnion("type", [
    /** The first model call of a turn may only call this tool. */
    z.object({ type: z.literal("run_first"), tool_name: name }),
    /** Calling this tool ends the turn. */
    z.object({ type: z.literal("exit_loop"), tool_name: name }),
    /** Calling this tool continues the turn, with or without a heartbeat. */
    z.object({ type: z.literal("continue_loop"), tool_name: name }),
    /** After this tool, the next model call may only call `children`. */
    z.object({ type: z.literal("constrain_child_tools"), tool_name: name, children }),
    /** This tool may be called at most `max_count_limit` times per turn. */
    z.object({
      type: z.literal("max_count_per_step"),
      tool_name: name,
      max_count_limit: z.int().min(1),
    }),
    /** The turn may not end before this tool has been called. */
    z.object({ type: z.literal("required_before_exit"), tool_name: name }),
    /** Every call of this tool needs a human's approval. */
    z.object({ type: z.literal("requires_approval"), tool_name: name }),
  ]);
}

/**
 * Tool rules as stored. They constrain which tools the model may call when, and whether a
 * call ends or continues the turn.
 */
export const ToolRule = toolRules(z.string(), z.array(z.string()).min(1));

/**
 * Tool rules as a request may set them: a tool's name is at most 64 characters (as a model
 * provider takes it), and a rule names at most 100 children, so no rule bloats the record
 * every turn loads.
 */
const RequestToolName = z.string().min(1).max(64);
export const RequestToolRule = toolRules(RequestToolName, z.array(RequestToolName).min(1).max(100));
export type ToolRule = z.infer<typeof ToolRule>;

/**
 * The rules with exact repeats dropped, first one kept, as Letta stores them
 * (letta/helpers/converters.py, `serialize_tool_rules`).
 */
export function uniqueToolRules(rules: readonly ToolRule[]): ToolRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    // Code-unit order: `localeCompare` depends on the locale and loads ICU's collation data.
    const key = JSON.stringify(
      Object.entries(rule).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
