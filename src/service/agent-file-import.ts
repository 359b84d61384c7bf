import { type FieldError, ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import { AgentFile, type AgentFileAgent, type AgentFileTool } from "../records/agent-file.js";
import type { AgentMessage } from "../records/messages.js";
import { ToolRule } from "../records/tool-rule.js";
import type { NewAgent } from "../storage/store.js";
import type { ServiceContext } from "./agent-access.js";
import { fromFileMessage } from "./agent-file-messages.js";
import { agentFromRequest } from "./create-agent.js";
import { CreateAgentRequest } from "./requests.js";

/** Letta's import form fields that Holdfast honours. */
export interface ImportOptions {
  /** A new name for the imported agents (Letta's `name`). */
  name?: string | undefined;
  /** A model handle to use instead of the file's. */
  model?: string | undefined;
  /** Import without the message history. */
  stripMessages?: boolean | undefined;
}

const PYTHON_TOOLS =
  "Holdfast runs no Python source; serve the tool from an MCP server (POST /v1/mcp-servers or mcp_servers in holdfast.yaml) or pass it as a client tool (client_tools on the message request), then import again";

/**
 * The tool of the file a name in this server's catalogue, or a field error saying why it
 * cannot be offered and what to do instead.
 */
function resolveTool(ctx: ServiceContext, tool: AgentFileTool, path: string): string | FieldError {
  if (ctx.config.catalogue.tools.has(tool.name)) return tool.name;
  const mcp = tool.metadata_?.mcp as { server_name?: unknown } | undefined;
  const server =
    typeof mcp?.server_name === "string"
      ? mcp.server_name
      : tool.tags?.find((t) => t.startsWith("mcp:"))?.slice(4);
  if (tool.tool_type === "external_mcp" || server)
    return {
      path,
      message: `tool '${tool.name}' comes from MCP server '${server ?? "?"}', which this server does not have or which does not offer it; add the server (POST /v1/mcp-servers) and import again`,
    };
  if (tool.source_code)
    return { path: `${path}.source_code`, message: `tool '${tool.name}': ${PYTHON_TOOLS}` };
  return {
    path: `${path}.name`,
    message: `no tool named '${tool.name}' on this server (GET /v1/tools/ lists them)`,
  };
}

/** Parts of Letta's format Holdfast cannot honour: refused, with the alternative. */
function refuseUnsupported(file: AgentFile): FieldError[] {
  const errors: FieldError[] = [];
  if (file.groups.length > 0)
    errors.push({
      path: "groups",
      message:
        "groups are not supported; a chain (/v1/chains, chains in holdfast.yaml) runs agents together",
    });
  for (const key of ["files", "sources"] as const)
    if (file[key].length > 0)
      errors.push({
        path: key,
        message: "folders and files are not imported; export the agent without them",
      });
  if (file.skills.length > 0)
    errors.push({
      path: "skills",
      message: "skills are not supported; use tools from an MCP server",
    });
  return errors;
}

/** The create request of one file agent, with problems of its references reported at their path. */
function requestOf(
  ctx: ServiceContext,
  file: AgentFile,
  agent: AgentFileAgent,
  at: string,
  options: ImportOptions,
  errors: FieldError[],
) {
  const tools = (agent.tool_ids ?? []).flatMap((id, k) => {
    const j = file.tools.findIndex((t) => t.id === id);
    const tool = file.tools[j];
    if (!tool) {
      errors.push({ path: `${at}.tool_ids.${k}`, message: `the file has no tool '${id}'` });
      return [];
    }
    const resolved = resolveTool(ctx, tool, `tools.${j}`);
    if (typeof resolved === "string") return [resolved];
    errors.push(resolved);
    return [];
  });
  const blocks = (agent.block_ids ?? []).flatMap((id, k) => {
    const block = file.blocks.find((b) => b.id === id);
    if (!block)
      errors.push({ path: `${at}.block_ids.${k}`, message: `the file has no block '${id}'` });
    return block ? [block] : [];
  });
  const rules = (agent.tool_rules ?? []).flatMap((rule, k) => {
    const parsed = ToolRule.safeParse(rule);
    if (parsed.success) return [parsed.data];
    errors.push({
      path: `${at}.tool_rules.${k}`,
      message: `tool rule '${rule.type}' is not supported here (known: run_first, exit_loop, continue_loop, constrain_child_tools, max_count_per_step, required_before_exit, requires_approval)`,
    });
    return [];
  });
  for (const key of ["source_ids", "folder_ids"] as const)
    if ((agent[key] ?? []).length > 0)
      errors.push({ path: `${at}.${key}`, message: "folders and files are not imported" });
  return {
    name: options.name ?? agent.name,
    agent_type: agent.agent_type ?? undefined,
    system: agent.system ?? null,
    description: agent.description ?? null,
    tags: agent.tags ?? [],
    metadata: agent.metadata ?? {},
    tool_rules: rules,
    tools: [...new Set(tools)],
    include_base_tools: false,
    model: options.model ?? agent.llm_config?.handle ?? agent.model ?? null,
    memory_blocks: blocks.map((b) => ({
      label: b.label,
      value: b.value,
      ...(b.limit ? { limit: b.limit } : {}),
      description: b.description ?? null,
      read_only: b.read_only ?? false,
      ...(b.tags ? { tags: b.tags } : {}),
      ...(b.metadata && Object.keys(b.metadata).length > 0 ? { metadata: b.metadata } : {}),
    })),
  };
}

/** A create-request field path as a path in the file. */
function filePath(path: string, at: string, options: ImportOptions): string {
  if (path === "model" && !options.model) return `${at}.llm_config.handle`;
  if (path.startsWith("memory_blocks.")) return `${at}.block_ids.${path.slice(14)}`;
  if (path.startsWith("tools.")) return `${at}.tool_ids.${path.slice(6)}`;
  return `${at}.${path}`;
}

/** The history of one file agent, without the compiled system prompt Letta puts first. */
function historyOf(ctx: ServiceContext, agent: AgentFileAgent, at: string, errors: FieldError[]) {
  const leading = agent.messages[0];
  const skip =
    leading?.role === "system" &&
    (agent.in_context_message_ids.length === 0 || agent.in_context_message_ids[0] === leading.id)
      ? 1
      : 0;
  return agent.messages
    .slice(skip)
    .flatMap((m, k) => fromFileMessage(m, `${at}.messages.${k + skip}`, ctx.ids, errors));
}

/**
 * Reads Letta's agent file and builds every agent it holds with new ids, or reports every
 * problem at its path in the file (`agents.0.llm_config.handle`, `tools.2.source_code`).
 * Nothing is written here.
 */
export function agentsFromFile(
  ctx: ServiceContext,
  projectId: string,
  raw: unknown,
  options: ImportOptions,
): Array<NewAgent & { messages: AgentMessage[] }> {
  const parsed = AgentFile.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError("invalid agent file", fieldErrorsFromZod(parsed.error));
  const file = parsed.data;
  const errors = refuseUnsupported(file);
  const built = file.agents.map((agent, i) => {
    const at = `agents.${i}`;
    const request = CreateAgentRequest.safeParse(requestOf(ctx, file, agent, at, options, errors));
    if (!request.success) {
      for (const e of fieldErrorsFromZod(request.error))
        errors.push({ ...e, path: filePath(e.path, at, options) });
      return null;
    }
    const messages = options.stripMessages ? [] : historyOf(ctx, agent, at, errors);
    try {
      return { ...agentFromRequest(ctx, projectId, request.data), messages };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const e of error.errors) errors.push({ ...e, path: filePath(e.path, at, options) });
      return null;
    }
  });
  if (errors.length > 0) throw new ValidationError("the agent file cannot be imported", errors);
  return built.filter((agent) => agent !== null);
}

/** Imports every agent of the file, all or nothing: an agent written before a failure is removed. */
export async function importAgentFile(
  ctx: ServiceContext,
  projectId: string,
  raw: unknown,
  options: ImportOptions,
): Promise<{ agent_ids: string[] }> {
  const agents = agentsFromFile(ctx, projectId, raw, options);
  const written: string[] = [];
  try {
    for (const created of agents) {
      await ctx.store.createAgent(created);
      written.push(created.agent.id);
    }
  } catch (error) {
    for (const id of written) await ctx.store.deleteAgent(id).catch(() => false);
    throw error;
  }
  return { agent_ids: written };
}
