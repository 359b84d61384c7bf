import type { IdSource } from "../core/ids.js";
import type { CoreBlock } from "../records/memory-records.js";
import type { ToolRule } from "../records/tool-rule.js";
import type { NewAgent } from "../storage/store.js";
import type { AgentType } from "../types/agent-type.js";
import type { AgentOverrides } from "../types/overrides.js";

export interface AgentSpec {
  name: string;
  projectId?: string;
  type: AgentType;
  overrides?: AgentOverrides;
  toolRules?: ToolRule[];
  tags?: string[];
  metadata?: Record<string, unknown>;
  description?: string | null;
  /** The agent that spawned it, for a sub-agent. */
  parentId?: string;
  /** Its id, when it must be derived (a sub-agent's, from its parent's run and call). */
  id?: string;
  /** Blocks to start with; by default the type's block templates. */
  blocks?: Omit<CoreBlock, "id">[];
}

/** The rows of a new agent: its record and its first core blocks. */
export function newAgent(spec: AgentSpec, ids: IdSource, nowMs: number): NewAgent {
  const templates =
    spec.blocks ??
    spec.type.memory.blocks.map((block) => ({
      label: block.label,
      description: block.description,
      value: block.value,
      limit: block.limit,
      read_only: block.read_only,
    }));
  return {
    agent: {
      id: spec.id ?? ids.next("agent"),
      project_id: spec.projectId ?? "default",
      name: spec.name,
      agent_type: spec.type.name,
      overrides: spec.overrides ?? {},
      tool_rules: spec.toolRules ?? [],
      tags: spec.tags ?? [],
      metadata: spec.metadata ?? {},
      description: spec.description ?? null,
      parent_id: spec.parentId ?? null,
      created_at_ms: nowMs,
      updated_at_ms: nowMs,
    },
    blocks: templates.map((block) => ({ ...block, id: ids.next("block") })),
  };
}
