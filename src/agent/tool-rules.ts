import { z } from "zod";

/**
 * Letta's tool rules, by their `type`. They constrain which tools the model may call when,
 * and whether a call ends or continues the turn.
 */
export const ToolRule = z.discriminatedUnion("type", [
  /** The first model call of a turn may only call this tool. */
  z.object({ type: z.literal("run_first"), tool_name: z.string() }),
  /** Calling this tool ends the turn. */
  z.object({ type: z.literal("exit_loop"), tool_name: z.string() }),
  /** Calling this tool continues the turn, with or without a heartbeat. */
  z.object({ type: z.literal("continue_loop"), tool_name: z.string() }),
  /** After this tool, the next model call may only call `children`. */
  z.object({
    type: z.literal("constrain_child_tools"),
    tool_name: z.string(),
    children: z.array(z.string()).min(1),
  }),
  /** This tool may be called at most `max_count_limit` times per turn. */
  z.object({
    type: z.literal("max_count_per_step"),
    tool_name: z.string(),
    max_count_limit: z.int().min(1),
  }),
  /** The turn may not end before this tool has been called. */
  z.object({ type: z.literal("required_before_exit"), tool_name: z.string() }),
  /** Every call of this tool needs a human's approval. */
  z.object({ type: z.literal("requires_approval"), tool_name: z.string() }),
]);
export type ToolRule = z.infer<typeof ToolRule>;

type RuleOf<T extends ToolRule["type"]> = Extract<ToolRule, { type: T }>;

function rulesOf<T extends ToolRule["type"]>(rules: readonly ToolRule[], type: T): RuleOf<T>[] {
  return rules.filter((rule): rule is RuleOf<T> => rule.type === type);
}

/** Where the turn is, as far as tool rules care. */
export interface RuleState {
  /** Model calls made so far this turn. */
  iteration: number;
  /** The last tool that ran this turn, if any. */
  lastTool: string | null;
  /** How often each tool was called this turn. */
  counts: Readonly<Record<string, number>>;
}

/**
 * The tools the rules allow on the next model call, out of `offered`. The result is what the
 * request offers and also what a call is checked against.
 */
export function allowedByRules(
  rules: readonly ToolRule[],
  offered: readonly string[],
  state: RuleState,
): string[] {
  let allowed = [...offered];
  const first = rulesOf(rules, "run_first");
  if (state.iteration === 0 && first.length > 0) {
    const names = first.map((rule) => rule.tool_name);
    allowed = allowed.filter((name) => names.includes(name));
  }
  const child = rulesOf(rules, "constrain_child_tools").find((r) => r.tool_name === state.lastTool);
  if (child) allowed = allowed.filter((name) => child.children.includes(name));
  for (const rule of rulesOf(rules, "max_count_per_step")) {
    if ((state.counts[rule.tool_name] ?? 0) >= rule.max_count_limit) {
      allowed = allowed.filter((name) => name !== rule.tool_name);
    }
  }
  return allowed;
}

/** Whether the rules force a tool call on the next model call (run_first, constrained children). */
export function mustCallTool(rules: readonly ToolRule[], state: RuleState): boolean {
  if (state.iteration === 0 && rulesOf(rules, "run_first").length > 0) return true;
  return rulesOf(rules, "constrain_child_tools").some((rule) => rule.tool_name === state.lastTool);
}

export const endsTurn = (rules: readonly ToolRule[], tool: string): boolean =>
  rulesOf(rules, "exit_loop").some((rule) => rule.tool_name === tool);

export const continuesTurn = (rules: readonly ToolRule[], tool: string): boolean =>
  rulesOf(rules, "continue_loop").some((rule) => rule.tool_name === tool);

export const needsApprovalByRule = (rules: readonly ToolRule[], tool: string): boolean =>
  rulesOf(rules, "requires_approval").some((rule) => rule.tool_name === tool);

/** The tools that must still be called before the turn may end. */
export function missingBeforeExit(
  rules: readonly ToolRule[],
  counts: RuleState["counts"],
): string[] {
  return rulesOf(rules, "required_before_exit")
    .map((rule) => rule.tool_name)
    .filter((name) => (counts[name] ?? 0) === 0);
}
