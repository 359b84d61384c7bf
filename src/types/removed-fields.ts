/**
 * Fields that older designs used and Holdfast replaced. A config that still has one gets an
 * error that says what replaced it, rather than a bare "unknown field".
 */
export const REMOVED_FIELDS: Readonly<Record<string, string>> = {
  iteration_strategy:
    "'iteration_strategy' was removed: set how the agent runs with 'control_flow' (iterating | single_shot) and which model with 'model' (provider/model)",
  llm_backend: "'llm_backend' was removed: choose the model with 'model' (provider/model)",
  execution_mode:
    "'execution_mode' was replaced by 'control_flow', which also accepts single, multi and autonomous",
  max_turns: "'max_turns' was replaced by 'limits.max_iterations'",
  allowed_tools: "'allowed_tools' was replaced by 'tools.allow'",
  denied_tools: "'denied_tools' was replaced by 'tools.deny'",
  tool_access: "'tool_access' was replaced by 'tools.access'",
  supports_heartbeats: "'supports_heartbeats' was replaced by 'heartbeats'",
  system_prompt_template: "'system_prompt_template' was replaced by 'system_prompt'",
  max_depth: "'max_depth' was replaced by 'limits.max_spawn_depth'",
};

/** The explanation for an unknown key that is a removed field, if it is one. */
export function explainRemovedField(key: string): string | undefined {
  return Object.hasOwn(REMOVED_FIELDS, key) ? REMOVED_FIELDS[key] : undefined;
}
