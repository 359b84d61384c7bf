import type { CoreBlockTemplate } from "./agent-type.js";
import { defineAgentType, type NamedDraft } from "./agent-type-draft.js";
import {
  LETTA_V1_PROMPT,
  MEMGPT_PROMPT,
  ORCHESTRATOR_PROMPT,
  REACT_PROMPT,
  SCORING_PROMPT,
  SYNTHESIS_PROMPT,
  VERIFIER_PROMPT,
} from "./prompts.js";

/** Letta's default core blocks: who the agent is and what it knows about its user. */
const LETTA_BLOCKS: CoreBlockTemplate[] = [
  {
    label: "persona",
    description: "Who you are and how you behave.",
    value: "I am a helpful assistant with a persistent memory.",
    limit: 5000,
    read_only: false,
  },
  {
    label: "human",
    description: "What you know about the person you talk with.",
    value: "",
    limit: 5000,
    read_only: false,
  },
];

/**
 * The built-in agent types. They are plain entries in the same registry config files add to,
 * and a config file can `extends:` any of them.
 */
export const BUILTIN_TYPES: readonly NamedDraft[] = [
  defineAgentType("memgpt_agent", {
    description:
      "Letta's MemGPT agent: replies through send_message, edits its memory, heartbeats.",
    system_prompt: MEMGPT_PROMPT,
    reply_via: "send_message",
    tools: { packs: ["messaging", "memgpt_memory", "heartbeat"], access: "constrained" },
    memory: {
      depth: "persistent",
      blocks: LETTA_BLOCKS,
      archival: true,
      conversation_search: true,
    },
    limits: { max_iterations: 5 },
    heartbeats: true,
  }),
  defineAgentType("letta_v1_agent", {
    description: "Letta's default agent: plain text replies, edits its memory, no heartbeats.",
    system_prompt: LETTA_V1_PROMPT,
    tools: { packs: ["letta_memory"], access: "constrained" },
    memory: {
      depth: "persistent",
      blocks: LETTA_BLOCKS,
      archival: true,
      conversation_search: true,
    },
    limits: { max_iterations: 10 },
  }),
  defineAgentType("react_agent", {
    description: "A ReAct loop over a shell: reason, run a command, observe, repeat.",
    system_prompt: REACT_PROMPT,
    tools: { packs: ["shell"], access: "full" },
    memory: { depth: "session", archival: false, conversation_search: false },
    limits: { max_iterations: 10 },
    final_answer_at_limit: true,
  }),
  defineAgentType("synthesis", {
    description: "One model call that combines findings into one answer; no tools.",
    control_flow: "single_shot",
    system_prompt: SYNTHESIS_PROMPT,
    tools: { access: "none" },
    memory: { depth: "session", archival: false, conversation_search: false },
    limits: { max_iterations: 1 },
  }),
  defineAgentType("scoring", {
    description: "One model call that scores an answer against its task; no tools.",
    control_flow: "single_shot",
    system_prompt: SCORING_PROMPT,
    tools: { access: "none" },
    memory: { depth: "session", archival: false, conversation_search: false },
    limits: { max_iterations: 1 },
  }),
  defineAgentType("orchestrator", {
    description: "Breaks a task into parts and spawns sub-agents of registered types for them.",
    system_prompt: ORCHESTRATOR_PROMPT,
    tools: { packs: ["spawn"], access: "full" },
    limits: { max_iterations: 20, max_spawn_depth: 2 },
    // Sub-agents are held by their own types' capabilities and approvals; spawning itself is not.
    policy_profile: "permissive",
  }),
  defineAgentType("verifier", {
    description: "Checks that work was done, with read-only tools and at most 5 steps.",
    system_prompt: VERIFIER_PROMPT,
    tools: { packs: ["filesystem_read"], access: "read_only" },
    memory: { depth: "session", archival: false, conversation_search: false },
    limits: { max_iterations: 5, max_spawn_depth: 0 },
    isolation: { read_only: true },
    policy_profile: "strict",
  }),
  defineAgentType("qa_assistant", {
    description: "Preset: answers one question at a time, no tools, no memory.",
    control_flow: "single",
    tools: { access: "none" },
    memory: { depth: "stateless", archival: false, conversation_search: false },
    limits: { max_iterations: 1 },
  }),
  defineAgentType("tutor", {
    description: "Preset: a conversational tutor that remembers the session; no tools.",
    control_flow: "multi",
    tools: { access: "none" },
    memory: { depth: "session", archival: false, conversation_search: false },
    limits: { max_iterations: 1 },
  }),
  defineAgentType("researcher", {
    description: "Preset: gathers information from the web and files, changes nothing.",
    control_flow: "autonomous",
    tools: {
      packs: ["web"],
      include: ["read_file"],
      allow: ["web_search", "web_fetch", "read_file"],
      access: "read_only",
    },
    memory: { depth: "persistent", archival: true, conversation_search: true },
    limits: { max_iterations: 20 },
    final_answer_at_limit: true,
  }),
  defineAgentType("developer", {
    description: "Preset: reads and writes files, runs commands, asks before every side effect.",
    control_flow: "autonomous",
    tools: { packs: ["filesystem", "shell", "web"], access: "full", approval: "per_action" },
    memory: { depth: "persistent", archival: true, conversation_search: true },
    limits: { max_iterations: 100, max_tool_calls_per_turn: 500 },
  }),
];
