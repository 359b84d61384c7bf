import type { ToolRule } from "../records/tool-rule.js";
import type { ToolCatalogue } from "../tools/catalogue.js";
import type { AgentType } from "../types/agent-type.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import type { AgentOverrides } from "../types/overrides.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "./loop-config.js";
import type { TurnAgent } from "./run-turn.js";

/** The agent a turn runs: its type and overrides resolved into prompt and loop configuration. */
export function createTurnAgent(options: {
  id: string;
  type: AgentType;
  overrides?: AgentOverrides;
  rules?: readonly ToolRule[];
  catalogue: ToolCatalogue;
  approvalTimeoutMs?: number;
  contextAfter?: string | undefined;
  /** The type's capabilities under these overrides, when already resolved (shared). */
  capabilities?: EffectiveCapabilities;
}): TurnAgent {
  const overrides = options.overrides ?? {};
  return {
    id: options.id,
    contextAfter: options.contextAfter,
    systemPrompt: overrides.system_prompt ?? options.type.system_prompt,
    config: {
      capabilities:
        options.capabilities ?? effectiveCapabilities(options.type, overrides, options.catalogue),
      rules: options.rules ?? [],
      finalAnswerAtLimit: options.type.final_answer_at_limit,
      approvalTimeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      verify: options.type.verify
        ? { with: options.type.verify.with, maxRounds: options.type.verify.max_rounds }
        : null,
    },
  };
}
