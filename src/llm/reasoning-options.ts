import type { ProviderName } from "./handle.js";
import type { ReasoningRequest } from "./model.js";

/** Provider options as the AI SDK takes them: per provider name, its own JSON fields. */
export type ProviderOptions = Record<string, Record<string, JSONValue>>;
type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** Anthropic's smallest thinking budget, and what it gets when none is set. */
const ANTHROPIC_DEFAULT_BUDGET = 4_096;

/**
 * The AI SDK provider options that ask `provider` for `reasoning`, or undefined for none:
 *
 * - Anthropic: `thinking: {type: "enabled", budget_tokens}` or `{type: "disabled"}`.
 * - OpenAI Responses: `reasoning: {effort, summary: "auto"}`; chat completions
 *   `reasoning_effort`. OpenAI has no "off" for its reasoning models: a disabled setting sends
 *   only an explicit effort (say `minimal`), else nothing.
 * - Gemini: `thinkingConfig: {includeThoughts, thinkingBudget}`; off is a budget of 0.
 * - Ollama and other chat-completions servers: `reasoning_effort`, when enabled.
 */
export function reasoningProviderOptions(
  provider: ProviderName,
  reasoning: ReasoningRequest | undefined,
): ProviderOptions | undefined {
  if (!reasoning) return undefined;
  const { enabled, budgetTokens } = reasoning;
  const effort = reasoning.effort ?? (enabled ? effortFor(budgetTokens) : undefined);
  switch (provider) {
    case "anthropic":
      return {
        anthropic: {
          thinking: enabled
            ? { type: "enabled", budgetTokens: budgetTokens ?? ANTHROPIC_DEFAULT_BUDGET }
            : { type: "disabled" },
        },
      };
    case "openai-responses":
      if (!effort) return undefined;
      return {
        openai: { reasoningEffort: effort, ...(enabled && { reasoningSummary: "auto" }) },
      };
    case "openai":
      return effort ? { openai: { reasoningEffort: effort } } : undefined;
    case "google":
      return {
        google: {
          thinkingConfig: enabled
            ? {
                includeThoughts: true,
                ...(budgetTokens !== undefined && { thinkingBudget: budgetTokens }),
              }
            : { includeThoughts: false, thinkingBudget: 0 },
        },
      };
    case "ollama":
    case "openai-compatible":
      return effort ? { [provider]: { reasoningEffort: effort } } : undefined;
    case "sim":
      return undefined;
  }
}

/** An OpenAI effort for a token budget: small budgets think little, large ones hard. */
function effortFor(budgetTokens: number | undefined): "low" | "medium" | "high" {
  if (budgetTokens === undefined) return "medium";
  if (budgetTokens <= 2_048) return "low";
  return budgetTokens <= 16_384 ? "medium" : "high";
}
