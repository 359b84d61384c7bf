import { renderSystem } from "../agent/prompt.js";
import { letOthersRun } from "../core/let-others-run.js";
import type { AgentMessage } from "../records/messages.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { toFileMessage } from "./agent-file-messages.js";
import { toolView } from "./letta-views.js";

const PAGE = 1000;

/** Every message of the agent, oldest first, read a page at a time. */
async function allMessages(ctx: ServiceContext, agentId: string): Promise<AgentMessage[]> {
  const out: AgentMessage[] = [];
  for (;;) {
    const after = out.at(-1)?.id;
    const page = await ctx.store.listMessages(agentId, { after, limit: PAGE, order: "asc" });
    out.push(...page);
    if (page.length < PAGE) return out;
    await letOthersRun();
  }
}

/** An MCP server as Letta's file names it: no secrets (`env`, `headers`) are ever written. */
function mcpServerEntry(name: string, config: Record<string, unknown> | undefined, id: string) {
  const url = typeof config?.url === "string" ? config.url : null;
  const transport = typeof config?.transport === "string" ? config.transport : null;
  return {
    id,
    server_name: name,
    server_type: transport ?? (url ? "streamable_http" : "stdio"),
    server_url: url,
    stdio_config: null,
    metadata_: null,
  };
}

/**
 * The agent as Letta's agent file (`AgentFileSchema`): the agent with file-local ids
 * (`agent-0`, `block-0`, `tool-0`, `message-0`, …), its core blocks, its tools (built-ins by
 * name; MCP tools as references to their server, never with its secrets) and its history,
 * led by the compiled system prompt as Letta's first in-context message is. Archival passages
 * are not part of Letta's format and are not written.
 */
export async function exportAgentFile(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
  options: { scrubMessages?: boolean } = {},
) {
  const agent = await requireAgent(ctx, projectId, agentId);
  const { catalogue } = ctx.config;
  const capabilities = effectiveCapabilities(agent.type, agent.overrides, catalogue);
  const blocks = await ctx.store.loadBlocks(agentId);
  const tools: ToolDeclaration[] = capabilities.offered.flatMap(
    (grant) => catalogue.tools.get(grant.name) ?? [],
  );
  const system = agent.overrides.system_prompt ?? agent.type.system_prompt;
  const modelHandle = capabilities.model ?? ctx.defaultModel;
  const history = options.scrubMessages ? [] : await allMessages(ctx, agentId);

  const servers = [
    ...new Set(tools.flatMap((t) => (t.source?.startsWith("mcp:") ? [t.source.slice(4)] : []))),
  ];
  const stored = servers.length > 0 ? await ctx.store.mcpServers.list() : [];
  const mcpServers = servers.map((name, i) =>
    mcpServerEntry(
      name,
      (ctx.config.mcpServers[name] as Record<string, unknown> | undefined) ??
        stored.find((s) => s.name === name)?.config,
      `mcp_server-${i}`,
    ),
  );
  const fileTools = tools.map((tool, i) => {
    const view = toolView(tool);
    const server = tool.source?.startsWith("mcp:") ? tool.source.slice(4) : null;
    return {
      ...view,
      id: `tool-${i}`,
      source_type: "json",
      source_code: null,
      return_char_limit: 50000,
      metadata_: server ? { mcp: { server_name: server } } : {},
    };
  });
  const fileAgentId = "agent-0";
  const prompt = renderSystem(system, blocks, capabilities.memory.core_memory);
  const lead = {
    ...toFileMessage(
      {
        id: "",
        date: new Date(agent.record.created_at_ms).toISOString(),
        run_id: null,
        step_id: null,
        otid: null,
        message_type: "system_message",
        content: prompt,
      },
      "message-0",
      fileAgentId,
    ),
  };
  const messages = [
    lead,
    ...history.map((m, i) => toFileMessage(m, `message-${i + 1}`, fileAgentId)),
  ];
  const [provider, ...rest] = modelHandle.split("/");
  return {
    agents: [
      {
        id: fileAgentId,
        name: agent.record.name,
        agent_type: agent.record.agent_type,
        system,
        description: agent.record.description,
        tags: agent.record.tags,
        metadata: agent.record.metadata,
        tool_rules: agent.record.tool_rules,
        tool_ids: fileTools.map((t) => t.id),
        block_ids: blocks.map((_, i) => `block-${i}`),
        source_ids: [],
        memory_blocks: [],
        tools: [],
        include_base_tools: false,
        llm_config: {
          model: rest.join("/"),
          model_endpoint_type: provider,
          handle: modelHandle,
          context_window: ctx.modelFor(modelHandle).contextWindow,
        },
        embedding_config: null,
        messages,
        in_context_message_ids: messages.map((m) => m.id),
        files_agents: [],
        group_ids: [],
      },
    ],
    groups: [],
    blocks: blocks.map((block, i) => ({
      id: `block-${i}`,
      label: block.label,
      value: block.value,
      limit: block.limit,
      description: block.description,
      read_only: block.read_only,
      metadata: block.metadata ?? {},
      tags: block.tags ?? [],
      is_template: false,
      preserve_on_migration: false,
    })),
    files: [],
    sources: [],
    tools: fileTools,
    mcp_servers: mcpServers,
    skills: [],
    metadata: { exported_by: "holdfast" },
    created_at: new Date(ctx.clock.now()).toISOString(),
  };
}
