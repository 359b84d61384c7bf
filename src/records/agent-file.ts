import { z } from "zod";

/**
 * Letta's agent file (`.af`, `letta/schemas/agent_file.py`, the "v2" format with separate
 * agents, blocks and tools), as far as Holdfast reads and writes it. Objects are loose: a file
 * written by Letta carries many fields Holdfast has no use for (template ids, embedding config,
 * timezones), and those are ignored rather than refused. Parts that would change what the
 * agent does but cannot be honoured (groups, folders, Python tools) are refused on import.
 */

const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const ReasoningPart = z.looseObject({
  type: z.literal("reasoning"),
  reasoning: z.string(),
  signature: z.string().nullish(),
});
/** A content part Holdfast has no message for (images, omitted reasoning): refused on import. */
const OtherPart = z.looseObject({ type: z.string() });
export const AgentFileContent = z.union([
  z.string(),
  z.array(z.union([TextPart, ReasoningPart, OtherPart])),
]);

export const AgentFileToolCall = z.looseObject({
  id: z.string(),
  type: z.string().default("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type AgentFileToolCall = z.infer<typeof AgentFileToolCall>;

/** An approval decision (`type: "approval"`) or a client tool's result (`type: "tool"`). */
export const AgentFileApproval = z.looseObject({
  type: z.string().nullish(),
  tool_call_id: z.string(),
  approve: z.boolean().nullish(),
  reason: z.string().nullish(),
  status: z.enum(["success", "error"]).nullish(),
  func_response: z.string().nullish(),
  tool_return: z.string().nullish(),
});

export const AgentFileMessage = z.looseObject({
  id: z.string(),
  role: z.enum(["system", "user", "assistant", "tool", "approval", "function"]),
  content: AgentFileContent.nullish(),
  name: z.string().nullish(),
  otid: z.string().nullish(),
  tool_calls: z.array(AgentFileToolCall).nullish(),
  tool_call_id: z.string().nullish(),
  tool_returns: z
    .array(z.looseObject({ tool_call_id: z.string().nullish(), status: z.string().nullish() }))
    .nullish(),
  created_at: z.string().nullish(),
  approvals: z.array(AgentFileApproval).nullish(),
});
export type AgentFileMessage = z.infer<typeof AgentFileMessage>;

export const AgentFileBlock = z.looseObject({
  id: z.string(),
  label: z.string().min(1),
  value: z.string(),
  limit: z.int().min(1).nullish(),
  description: z.string().nullish(),
  read_only: z.boolean().nullish(),
  tags: z.array(z.string()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type AgentFileBlock = z.infer<typeof AgentFileBlock>;

export const AgentFileTool = z.looseObject({
  id: z.string(),
  name: z.string().min(1),
  tool_type: z.string().nullish(),
  description: z.string().nullish(),
  source_code: z.string().nullish(),
  source_type: z.string().nullish(),
  json_schema: z.record(z.string(), z.unknown()).nullish(),
  tags: z.array(z.string()).nullish(),
  metadata_: z.record(z.string(), z.unknown()).nullish(),
});
export type AgentFileTool = z.infer<typeof AgentFileTool>;

export const AgentFileAgent = z.looseObject({
  id: z.string(),
  name: z.string().min(1).max(200),
  agent_type: z.string().nullish(),
  system: z.string().nullish(),
  description: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  tool_rules: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_ids: z.array(z.string()).nullish(),
  block_ids: z.array(z.string()).nullish(),
  source_ids: z.array(z.string()).nullish(),
  folder_ids: z.array(z.string()).nullish(),
  llm_config: z
    .looseObject({ handle: z.string().nullish(), model: z.string().nullish() })
    .nullish(),
  model: z.string().nullish(),
  messages: z.array(AgentFileMessage).default([]),
  in_context_message_ids: z.array(z.string()).default([]),
  files_agents: z.array(z.unknown()).default([]),
  group_ids: z.array(z.string()).default([]),
});
export type AgentFileAgent = z.infer<typeof AgentFileAgent>;

export const AgentFileMcpServer = z.looseObject({
  id: z.string(),
  server_name: z.string(),
  server_type: z.string(),
  server_url: z.string().nullish(),
});

export const AgentFile = z.looseObject({
  agents: z.array(AgentFileAgent).min(1),
  groups: z.array(z.unknown()).default([]),
  blocks: z.array(AgentFileBlock).default([]),
  files: z.array(z.unknown()).default([]),
  sources: z.array(z.unknown()).default([]),
  tools: z.array(AgentFileTool).default([]),
  mcp_servers: z.array(AgentFileMcpServer).default([]),
  skills: z.array(z.unknown()).default([]),
  metadata: z.record(z.string(), z.string()).default({}),
  created_at: z.string().nullish(),
});
export type AgentFile = z.infer<typeof AgentFile>;
