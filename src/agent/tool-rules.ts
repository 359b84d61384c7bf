import type { ToolRule } from "../records/tool-rule.js";

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
