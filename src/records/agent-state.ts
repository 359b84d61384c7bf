import { z } from "zod";
import { AgentRecord } from "./agent-record.js";
import { BlockView } from "./core-block.js";
import { FreeFormObject } from "./free-form-json.js";
import { LettaMessage } from "./letta-message.js";
import { StopReason } from "./messages.js";
import { RequestToolRule, ToolRule } from "./tool-rule.js";

/**
 * The agent as the API shows it and takes it: what a client may set (create and update
 * requests), and Letta's `AgentState` answered for it. Both reuse the stored record's fields
 * (agent-record.ts), so a field has one definition from storage to `/openapi.json`.
 */

/**
 * The fields a client sets on an agent, as `POST /v1/agents/` and `PATCH /v1/agents/{id}` take
 * them (bounded, so storing and answering never fail); null or absent leaves the type's value.
 */
export const AgentSettings = z.object({
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(10_000).nullish(),
  system: z.string().max(200_000).nullish(),
  model: z.string().min(1).max(300).nullish(),
  /** The embedding model of the agent's memory (hybrid search); a new one re-embeds it. */
  embedding: z.string().min(1).max(300).nullish(),
  tool_rules: z.array(RequestToolRule).max(200).nullish(),
  tags: z.array(z.string().min(1).max(200)).max(100).nullish(),
  metadata: FreeFormObject.nullish(),
  /**
   * Blocks of the project (`/v1/blocks`), shared with the agents that have them: a create
   * attaches them; an update makes the agent's blocks exactly these (Letta's semantics).
   */
  block_ids: z.array(z.string().min(1).max(200)).max(100).nullish(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

/** A tool as Letta shows it. Built-in tools have stable ids: `tool-<name>`. */
export const LettaTool = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** `letta_core`, `external_mcp` or `custom`. */
  tool_type: z.string(),
  json_schema: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
  args_json_schema: z.record(z.string(), z.unknown()),
  default_requires_approval: z.boolean(),
  source_type: z.string(),
  /** Its risk class, and its source (`mcp:<server>`) when not built in. */
  tags: z.array(z.string()),
});
export type LettaTool = z.infer<typeof LettaTool>;

/** Letta's `EmbeddingConfig` of an embedding handle. */
export const EmbeddingConfig = z.object({
  handle: z.string(),
  embedding_model: z.string(),
  embedding_endpoint_type: z.string(),
  embedding_dim: z.int(),
  embedding_chunk_size: z.int(),
});

/** How far an agent's memory is embedded, where the server embeds. */
export const EmbeddingStatus = z.object({
  /** The embedding model of the agent's memory; null searches full-text only. */
  model: z.string().nullable(),
  /** Passages and searchable messages with a vector of `model`, of `total`. */
  embedded: z.int(),
  total: z.int(),
  /**
   * `off` (no model), `ready` (all embedded), `embedding` (queued or at work), `retrying`
   * (a transient failure; waiting to try again) or `failed` (a failure that retrying will not
   * fix, such as a bad key: tried again on the agent's next write or at start-up).
   */
  state: z.enum(["off", "ready", "embedding", "retrying", "failed"]),
  last_error: z.string().nullable(),
});
export type EmbeddingStatus = z.infer<typeof EmbeddingStatus>;

const iso = z.string().describe("ISO 8601 time");

/**
 * Letta's `AgentState`. `capabilities` is Holdfast's EffectiveCapabilities, whose schema lives
 * with agent types (a layer above records): the service's view extends this with it.
 */
export const AgentState = z.object({
  id: AgentRecord.shape.id,
  name: AgentRecord.shape.name,
  agent_type: AgentRecord.shape.agent_type,
  description: z.string().nullable(),
  system: z.string(),
  tags: AgentRecord.shape.tags,
  metadata: AgentRecord.shape.metadata,
  /** The model handle (`openai/gpt-4.1-mini`). */
  model: z.string(),
  llm_config: z.object({
    model: z.string(),
    handle: z.string(),
    model_endpoint_type: z.string(),
    context_window: z.int(),
  }),
  embedding: z.string().nullable(),
  embedding_config: EmbeddingConfig.nullable(),
  embedding_status: EmbeddingStatus.nullable(),
  blocks: z.array(BlockView),
  memory: z.object({ blocks: z.array(BlockView) }),
  tools: z.array(LettaTool),
  tool_rules: z.array(ToolRule),
  sources: z.array(z.unknown()),
  created_at: iso,
  updated_at: iso,
  capabilities: z.record(z.string(), z.unknown()),
  /** The stop reason of the agent's last ended run. */
  last_stop_reason: StopReason.nullable(),
  /** The approval request it waits on, with `include=agent.pending_approval`; else null. */
  pending_approval: LettaMessage.nullable(),
});
export type AgentState = z.infer<typeof AgentState>;

/**
 * A sub-agent as `GET /v1/agents/{id}/children` shows it. `children` holds nodes of this same
 * shape (OpenAPI cannot name the recursion; the service's `ChildNode` type says it).
 */
export const AgentChildNode = z.object({
  id: z.string(),
  name: z.string(),
  agent_type: z.string(),
  /** What its session is doing now: idle, running, awaiting_approval, awaiting_children, paused. */
  status: z.string(),
  /** The run its parent gave it (its task), once it started. */
  task_run: z
    .object({ id: z.string(), status: z.string(), stop_reason: z.string().nullable() })
    .nullable(),
  created_at: iso,
  children: z.array(z.unknown()),
});
