import type { z } from "zod";
import { parseModelHandle } from "../llm/handle.js";
import type { AgentRecord, RunRecord } from "../records/agent-record.js";
import { AgentState, type LettaTool } from "../records/agent-state.js";
import { type BlockView, blockView } from "../records/core-block.js";
import type { LettaMessage } from "../records/letta-message.js";
import type { LettaRun } from "../records/letta-run.js";
import type { CoreBlock, Passage } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";
import type { EmbeddingProgress } from "../runtime/embedding-queue.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import { EffectiveCapabilities } from "../types/capabilities-schema.js";
import type { AgentRunState } from "./agent-run-state.js";
import { embeddingModelView } from "./embedding-views.js";
import type { FolderView } from "./folder-views.js";

const iso = (ms: number) => new Date(ms).toISOString();

export { type BlockView, blockView };

/** A tool as Letta shows it. Built-in tools have stable ids: `tool-<name>`. */
export function toolView(tool: ToolDeclaration, requiresApproval = false): LettaTool {
  return {
    id: `tool-${tool.name}`,
    name: tool.name,
    description: tool.description,
    tool_type: toolType(tool),
    json_schema: { name: tool.name, description: tool.description, parameters: tool.jsonSchema },
    args_json_schema: tool.jsonSchema,
    default_requires_approval: requiresApproval,
    source_type: "holdfast",
    tags: tool.source ? [tool.risk, tool.source] : [tool.risk],
  };
}

/** Letta's kind of tool: its core tools, an MCP server's (`external_mcp`), or Holdfast's own. */
function toolType(tool: ToolDeclaration): string {
  if (tool.source?.startsWith("mcp:")) return "external_mcp";
  return tool.requires || tool.name === "send_message" ? "letta_core" : "custom";
}

/** Letta's `AgentState` as the API answers it: the records' schema with its capabilities. */
export const AgentStateView = AgentState.extend({ capabilities: EffectiveCapabilities });
export type AgentStateView = z.infer<typeof AgentStateView>;

/** Letta's `AgentState` from what Holdfast stores and computes. */
export function agentStateView(input: {
  record: AgentRecord;
  systemPrompt: string;
  capabilities: EffectiveCapabilities;
  modelHandle: string;
  contextWindow: number;
  blocks: readonly CoreBlock[];
  tools: readonly ToolDeclaration[];
  runState: AgentRunState;
  /** The embedding model of its memory, or null (full-text search only). */
  embedding: string | null;
  /** How far its memory is embedded, where the server embeds (null elsewhere). */
  embeddingStatus: EmbeddingProgress | null;
  /** Its attached folders, as Letta's `sources`. */
  sources?: FolderView[];
}): AgentStateView {
  const { record, capabilities } = input;
  const blocks = input.blocks.map(blockView);
  const byRule = (name: string) =>
    record.tool_rules.some((rule) => rule.type === "requires_approval" && rule.tool_name === name);
  const approval = new Map(
    capabilities.offered.map((grant) => [
      grant.name,
      grant.approval !== "never" || byRule(grant.name),
    ]),
  );
  const { provider, model } = parseModelHandle(input.modelHandle);
  return {
    id: record.id,
    name: record.name,
    agent_type: record.agent_type,
    description: record.description ?? legacyDescription(record.metadata),
    system: input.systemPrompt,
    tags: record.tags,
    metadata: record.metadata,
    model: input.modelHandle,
    llm_config: {
      model,
      handle: input.modelHandle,
      model_endpoint_type: provider,
      context_window: input.contextWindow,
    },
    embedding: input.embedding,
    embedding_config: input.embedding === null ? null : embeddingConfig(input.embedding),
    embedding_status: input.embeddingStatus,
    blocks,
    memory: { blocks },
    tools: input.tools.map((tool) => toolView(tool, approval.get(tool.name) ?? false)),
    tool_rules: record.tool_rules,
    sources: input.sources ?? [],
    created_at: iso(record.created_at_ms),
    updated_at: iso(record.updated_at_ms),
    capabilities,
    last_stop_reason: input.runState.last_stop_reason,
    pending_approval: input.runState.pending_approval,
  };
}

/**
 * Messages as Letta's clients expect them: a send_message call is the assistant's reply
 * (`assistant_message`), and its bookkeeping tool return ("sent") is not shown. Each message
 * also carries Letta's newer fields beside the older singular ones Letta still sends
 * (letta/schemas/letta_message.py: `tool_calls`, `tool_returns`, and on an approval response
 * `approve`, `approval_request_id`, `reason` from its first decision), and an `otid`: the
 * client's own when it sent one, else one derived from the message id, so a streamed chunk and
 * the stored message agree.
 */
export function lettaMessages(messages: readonly AgentMessage[]): LettaMessageView[] {
  return messages.flatMap((message): LettaMessageView[] => {
    if (message.message_type === "tool_call_message" && message.tool_call.name === "send_message") {
      return [
        {
          ...baseOf(message),
          message_type: "assistant_message",
          content: replyText(message.tool_call.arguments),
        },
      ];
    }
    if (message.message_type === "tool_return_message" && message.name === "send_message")
      return [];
    return [withLettaFields(message)];
  });
}

/** A message as the API shows it: the stored message plus Letta's derived fields. */
export type LettaMessageView = LettaMessage;

/** The `otid` a message shows: the client's, else one derived from the message id. */
export function otidOf(message: { id: string; otid: string | null }): string {
  return message.otid ?? `otid-${message.id.replace(/^message-/, "")}`;
}

function withLettaFields(message: AgentMessage): LettaMessageView {
  const otid = otidOf(message);
  switch (message.message_type) {
    case "tool_call_message":
    case "approval_request_message":
      return { ...message, otid, tool_calls: [message.tool_call] };
    case "tool_return_message": {
      const { tool_call_id, status, tool_return } = message;
      const tool_returns = [
        { type: "tool" as const, tool_call_id, status, tool_return, stdout: null, stderr: null },
      ];
      return { ...message, otid, stdout: null, stderr: null, tool_returns };
    }
    case "approval_response_message": {
      const first = message.approvals.find((a) => !("type" in a));
      return {
        ...message,
        otid,
        approvals: message.approvals.map((a) => ("type" in a ? a : { type: "approval", ...a })),
        approve: first && "approve" in first ? first.approve : null,
        approval_request_id: first?.tool_call_id ?? null,
        reason: first && "reason" in first ? first.reason : null,
      };
    }
    default:
      return { ...message, otid };
  }
}

function baseOf(message: AgentMessage) {
  const { id, date, run_id, step_id, seq_id } = message;
  const otid = otidOf(message);
  return { id, date, run_id, step_id, otid, ...(seq_id === undefined ? {} : { seq_id }) };
}

function replyText(args: string): string {
  try {
    const parsed = JSON.parse(args) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message : args;
  } catch {
    return args;
  }
}

/** Letta's `EmbeddingConfig` of a handle. */
function embeddingConfig(handle: string) {
  const { embedding_model, embedding_endpoint_type, embedding_dim, embedding_chunk_size } =
    embeddingModelView(handle);
  return { handle, embedding_model, embedding_endpoint_type, embedding_dim, embedding_chunk_size };
}

export function passageView(passage: Passage, agentId: string) {
  return {
    id: passage.id,
    text: passage.text,
    tags: passage.tags,
    agent_id: agentId,
    created_at: iso(passage.created_at_ms),
    embedding: null,
  };
}

/** Letta's `Run`, with Holdfast's usage, verifier outcome and the models that answered. */
export function runView(run: RunRecord): LettaRun {
  return {
    id: run.id,
    agent_id: run.agent_id,
    status: run.status,
    stop_reason: run.stop_reason,
    created_at: iso(run.created_at_ms),
    completed_at: run.completed_at_ms === null ? null : iso(run.completed_at_ms),
    total_duration_ns:
      run.completed_at_ms === null ? null : (run.completed_at_ms - run.created_at_ms) * 1_000_000,
    background: false,
    metadata: {},
    usage: run.usage,
    verification: run.verification,
    models: run.models,
  };
}
export type RunView = LettaRun;

/** Agents stored before `description` had its own field kept it in their metadata. */
function legacyDescription(metadata: Record<string, unknown>): string | null {
  return typeof metadata.description === "string" ? metadata.description : null;
}
