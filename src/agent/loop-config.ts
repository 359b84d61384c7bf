import type { ToolRule } from "../records/tool-rule.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";

/** What the loop needs to know about the agent to decide its steps: data only. */
export interface LoopConfig {
  readonly capabilities: EffectiveCapabilities;
  readonly rules: readonly ToolRule[];
  /** At the iteration limit, make one more call without tools for a final answer. */
  readonly finalAnswerAtLimit: boolean;
  /** How long a pending approval waits before it counts as denied. */
  readonly approvalTimeoutMs: number;
  /** The verifier gate: a sub-agent of type `with` checks the final answer, up to `maxRounds` times. */
  readonly verify: { readonly with: string; readonly maxRounds: number } | null;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
