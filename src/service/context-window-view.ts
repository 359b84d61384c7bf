import { estimateTokens, messageTokens } from "../agent/context-window.js";
import { afterReset } from "../agent/history-window.js";
import { DEFAULT_HISTORY_LIMIT, DEFAULT_MAX_OUTPUT_TOKENS } from "../agent/perform-step.js";
import { buildRequest, renderSystem, withDirectories } from "../agent/prompt.js";
import { allowedByRules } from "../agent/tool-rules.js";
import { createTurnAgent } from "../agent/turn-agent.js";
import type { ModelMessage } from "../llm/model.js";
import { loadDirectories } from "../memory/directories.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";

/** A model message as Letta's context view lists it (OpenAI-style roles). */
function messageView(message: ModelMessage) {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        tool_calls: message.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.toolCallId,
        name: message.toolName,
        content: message.content,
      };
  }
}

/**
 * Letta's `ContextWindowOverview` of the agent's next model call, built by the loop's own
 * prompt builder (`buildRequest`) from what the next turn's first call would send: the system
 * prompt, the rendered core memory, the tools the rules allow on a first call, and the history
 * that fits; core memory includes the attached folders and open files, as Letta's does. Token counts use the loop's estimate, the one it fits the window with. Holdfast
 * puts no external-memory summary in its prompt, so that part is empty.
 */
export async function contextWindowOverview(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
) {
  const agent = await requireAgent(ctx, projectId, agentId);
  const { catalogue } = ctx.config;
  const turn = createTurnAgent({
    id: agentId,
    type: agent.type,
    overrides: agent.overrides,
    rules: agent.record.tool_rules,
    catalogue,
    contextAfter: agent.record.context_after,
  });
  const caps = turn.config.capabilities;
  const offered = caps.offered.map((grant) => grant.name);
  const names = allowedByRules(turn.config.rules, offered, {
    iteration: 0,
    lastTool: null,
    counts: {},
  });
  const tools = names.flatMap((name) => catalogue.tools.get(name) ?? []);
  const blocks = await ctx.store.loadBlocks(agentId);
  const history = caps.include_history
    ? afterReset(await ctx.store.recentMessages(agentId, DEFAULT_HISTORY_LIMIT), turn.contextAfter)
    : [];
  const contextWindow = ctx.modelFor(caps.model ?? ctx.defaultModel).contextWindow;
  const directories = await loadDirectories(ctx.store.folders, agentId, contextWindow);
  const built = buildRequest({
    systemPrompt: turn.systemPrompt,
    blocks,
    directories,
    capabilities: caps,
    history,
    tools,
    toolChoice: "auto",
    contextWindow,
    maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
  });
  const system = withDirectories(
    renderSystem(turn.systemPrompt, blocks, caps.memory.core_memory),
    directories,
  );
  const coreMemory = system.slice(turn.systemPrompt.length);
  const request = built.ok ? built.request : null;
  const evicted = built.ok ? built.evicted : 0;
  // The notice standing in for evicted messages is the prompt's summary of what is left out.
  const notice = evicted > 0 ? request?.messages[0] : undefined;
  // With no history the builder opens with a placeholder the next turn's input replaces.
  const messages =
    history.length === 0 ? [] : (request?.messages ?? []).filter((m) => m !== notice);
  const functions = (request?.tools ?? []).map((tool) => ({ type: "function", function: tool }));
  const tokens = {
    system: estimateTokens(turn.systemPrompt),
    core: coreMemory === "" ? 0 : estimateTokens(coreMemory),
    tools: functions.length === 0 ? 0 : estimateTokens(JSON.stringify(request?.tools ?? [])),
    summary: notice ? messageTokens(notice) : 0,
    messages: messages.reduce((sum, m) => sum + messageTokens(m), 0),
  };
  return {
    context_window_size_max: contextWindow,
    context_window_size_current:
      tokens.system + tokens.core + tokens.tools + tokens.summary + tokens.messages,
    num_messages: messages.length + (notice ? 1 : 0),
    num_archival_memory: await ctx.store.countPassages(agentId),
    num_recall_memory: await ctx.store.countMessages(agentId),
    num_tokens_external_memory_summary: 0,
    external_memory_summary: "",
    num_tokens_system: tokens.system,
    system_prompt: turn.systemPrompt,
    num_tokens_core_memory: tokens.core,
    core_memory: coreMemory,
    num_tokens_summary_memory: tokens.summary,
    summary_memory: notice && notice.role === "user" ? notice.content : null,
    num_tokens_functions_definitions: tokens.tools,
    functions_definitions: functions,
    num_tokens_messages: tokens.messages,
    messages: messages.map(messageView),
  };
}
