import type { ModelMessage, ModelRequest, ModelToolSpec } from "../llm/model.js";
import type { CoreBlock } from "../memory/core-block.js";
import type { AgentMessage } from "../records/messages.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { estimateTokens, fitHistory, messageTokens } from "./context-window.js";
import { toModelMessages } from "./history.js";

export interface PromptInput {
  systemPrompt: string;
  blocks: readonly CoreBlock[];
  /** The attached folders and open files (`<directories>`), after the blocks; none if empty. */
  directories?: string;
  capabilities: EffectiveCapabilities;
  history: readonly AgentMessage[];
  /** Messages that open the conversation before the history (summary, recall); always kept. */
  preface?: readonly ModelMessage[];
  /** Declarations of the tools to offer on this call, in order. */
  tools: readonly ToolDeclaration[];
  toolChoice: ModelRequest["toolChoice"];
  contextWindow: number;
  maxOutputTokens: number;
}

export type BuiltPrompt =
  /** `budget`: the tokens the history could take; `evicted`: messages left out to fit it. */
  | { ok: true; request: ModelRequest; evicted: number; budget: number }
  | { ok: false; systemTokens: number };

/** Builds one model request; fails only when the system prompt alone cannot fit the window. */
export function buildRequest(input: PromptInput): BuiltPrompt {
  const system = withDirectories(
    renderSystem(input.systemPrompt, input.blocks, input.capabilities.memory.core_memory),
    input.directories,
  );
  const tools = input.tools.map((tool) => toolSpec(tool, input.capabilities));
  const preface = input.preface ?? [];
  const fixedTokens =
    estimateTokens(system) +
    estimateTokens(JSON.stringify(tools)) +
    preface.reduce((sum, message) => sum + messageTokens(message), 0);
  const budget = input.contextWindow - input.maxOutputTokens - fixedTokens;
  if (budget <= 0) return { ok: false, systemTokens: fixedTokens };
  const fitted = fitHistory(toModelMessages(input.history), budget);
  const request: ModelRequest = {
    system,
    messages: ensureUserFirst([...preface, ...fitted.messages]),
    tools,
    maxOutputTokens: input.maxOutputTokens,
    toolChoice: tools.length === 0 ? "none" : input.toolChoice,
  };
  return { ok: true, request, evicted: fitted.evicted, budget };
}

/** Some providers refuse a conversation that does not open with the user. */
function ensureUserFirst(messages: ModelMessage[]): ModelMessage[] {
  if (messages[0]?.role === "user") return messages;
  return [{ role: "user", content: "[system] The conversation continues." }, ...messages];
}

/** The system prompt with the core memory blocks, which are always in view. */
export function renderSystem(
  prompt: string,
  blocks: readonly CoreBlock[],
  coreMemory: boolean,
): string {
  if (!coreMemory || blocks.length === 0) return prompt;
  const rendered = blocks.map(
    (block) =>
      `<${block.label}>\n<description>${block.description}</description>\n` +
      `<metadata>chars_current=${block.value.length} chars_limit=${block.limit}${block.read_only ? " read_only=true" : ""}</metadata>\n` +
      `<value>\n${block.value}\n</value>\n</${block.label}>`,
  );
  return `${prompt}\n\n<memory_blocks>\nThese memory blocks are always in view.\n${rendered.join("\n")}\n</memory_blocks>`;
}

/** The system prompt with the agent's directories (attached folders, open files) after it. */
export function withDirectories(system: string, directories: string | undefined): string {
  return directories ? `${system}\n\n${directories}` : system;
}

/** A tool as the model sees it, with the heartbeat and intent arguments the type asks for. */
export function toolSpec(tool: ToolDeclaration, caps: EffectiveCapabilities): ModelToolSpec {
  const schema = tool.jsonSchema as { properties?: Record<string, unknown>; required?: string[] };
  const properties = { ...schema.properties };
  const required = [...(schema.required ?? [])];
  if (caps.heartbeats) {
    properties.request_heartbeat = {
      type: "boolean",
      description: "true to keep working after this call; false to end your turn.",
    };
    required.push("request_heartbeat");
  }
  if (caps.intent_required) {
    properties.intent = { type: "string", description: "Why you make this call, in one sentence." };
    required.push("intent");
  }
  return {
    name: tool.name,
    description: tool.description,
    parameters: { ...tool.jsonSchema, properties, required },
  };
}
