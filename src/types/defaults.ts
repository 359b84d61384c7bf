import type { AgentType } from "./agent-type.js";
import { DEFAULT_PROMPT } from "./prompts.js";

/**
 * The lowest layer under every agent type: a config file's `defaults:` section goes on top,
 * then the chain of types it extends, then the type itself.
 */
export const SYSTEM_DEFAULTS: Omit<AgentType, "name"> = {
  description: "",
  control_flow: "iterating",
  include_history: true,
  model: null,
  model_fallbacks: [],
  reasoning: null,
  system_prompt: DEFAULT_PROMPT,
  reply_via: "text",
  tools: { packs: [], include: [], allow: null, deny: [], access: "full", approval: "never" },
  memory: {
    depth: "persistent",
    blocks: [],
    archival: true,
    conversation_search: true,
    session_idle_minutes: 60,
    recall_tokens: 1000,
  },
  limits: {
    max_iterations: 10,
    max_tool_calls_per_turn: 50,
    max_tokens_per_turn: 32_000,
    max_spawn_depth: 1,
  },
  heartbeats: false,
  isolation: { read_only: false, workspace_root: null, network: false },
  policy_profile: "standard",
  intent_required: false,
  final_answer_at_limit: false,
  verify: null,
};
