import type { AgentMemory } from "../../memory/agent-memory.js";
import { checkBlockValue } from "../../memory/core-block.js";
import {
  failure,
  implementTool,
  success,
  type ToolImplementation,
  type ToolResult,
} from "../tool.js";
import { conversationResults } from "./conversation-results.js";
import {
  archivalMemoryInsertTool,
  archivalMemorySearchTool,
  conversationSearchTool,
  coreMemoryAppendTool,
  coreMemoryReplaceTool,
  memoryInsertTool,
  memoryReplaceTool,
  pauseHeartbeatsTool,
  sendMessageTool,
} from "./letta-tools.js";

/** Writes a block's new value if it is within the block's limit and the block is writable. */
function writeBlock(
  memory: AgentMemory,
  label: string,
  edit: (value: string) => string | ToolResult,
): ToolResult {
  const block = memory.blocks().find((candidate) => candidate.label === label);
  if (!block) {
    const labels = memory.blocks().map((candidate) => candidate.label);
    return failure(`there is no memory block '${label}'; blocks: ${labels.join(", ") || "(none)"}`);
  }
  const value = edit(block.value);
  if (typeof value !== "string") return value;
  const checked = checkBlockValue(block, value);
  if (!checked.ok) return failure(checked.error);
  memory.setBlockValue(label, value);
  return success(`block '${label}' now holds ${value.length} of ${block.limit} characters`);
}

/** Replaces the one occurrence of `old` in `value`; zero or several are errors the model can fix. */
function replaceOnce(
  value: string,
  old: string,
  replacement: string,
  label: string,
): string | ToolResult {
  if (old === "") return failure("the text to replace is empty");
  const first = value.indexOf(old);
  if (first === -1) return failure(`the text to replace does not occur in block '${label}'`);
  if (value.indexOf(old, first + 1) !== -1) {
    return failure(
      `the text to replace occurs more than once in block '${label}'; quote more of it`,
    );
  }
  return value.slice(0, first) + replacement + value.slice(first + old.length);
}

export const MEMORY_IMPLEMENTATIONS: ToolImplementation[] = [
  implementTool(sendMessageTool, { idempotent: true }, async ({ message }) =>
    success("sent", { reply: message }),
  ),
  implementTool(
    coreMemoryAppendTool,
    { idempotent: false, stagedEffects: true },
    async ({ label, content }, ctx) =>
      writeBlock(ctx.memory, label, (value) => (value ? `${value}\n${content}` : content)),
  ),
  implementTool(
    coreMemoryReplaceTool,
    { idempotent: false, stagedEffects: true },
    async (args, ctx) =>
      writeBlock(ctx.memory, args.label, (value) =>
        replaceOnce(value, args.old_content, args.new_content, args.label),
      ),
  ),
  implementTool(memoryInsertTool, { idempotent: false, stagedEffects: true }, async (args, ctx) =>
    writeBlock(ctx.memory, args.label, (value) => {
      const lines = value === "" ? [] : value.split("\n");
      const at = Math.min(args.insert_line ?? lines.length, lines.length);
      return [...lines.slice(0, at), args.new_str, ...lines.slice(at)].join("\n");
    }),
  ),
  implementTool(memoryReplaceTool, { idempotent: false, stagedEffects: true }, async (args, ctx) =>
    writeBlock(ctx.memory, args.label, (value) =>
      replaceOnce(value, args.old_str, args.new_str, args.label),
    ),
  ),
  implementTool(
    archivalMemoryInsertTool,
    { idempotent: false, stagedEffects: true },
    async ({ content, tags }, ctx) => {
      const passage = await ctx.memory.insertPassage(content, tags ?? []);
      return success(`stored passage ${passage.id}`);
    },
  ),
  implementTool(
    archivalMemorySearchTool,
    { idempotent: true },
    async ({ query, tags, top_k }, ctx) => {
      const found = await ctx.memory.searchPassages(query, {
        ...(tags ? { tags } : {}),
        topK: top_k ?? 5,
      });
      if (found.length === 0) return success("no passages match");
      return success(
        found.map((p) => `[${new Date(p.created_at_ms).toISOString()}] ${p.text}`).join("\n"),
      );
    },
  ),
  implementTool(
    conversationSearchTool,
    { idempotent: true },
    async ({ query, roles, limit }, ctx) => {
      const found = await ctx.memory.searchMessages(query, {
        ...(roles ? { roles } : {}),
        limit: limit ?? 10,
        // The turn's own messages are in context already; its question is never its answer.
        ...(ctx.runId ? { excludeRunId: ctx.runId } : {}),
      });
      return success(conversationResults(found, ctx.clock.now()));
    },
  ),
  implementTool(pauseHeartbeatsTool, { idempotent: true }, async ({ minutes }, ctx) => {
    const until = ctx.clock.now() + minutes * 60_000;
    return success(`paused until ${new Date(until).toISOString()}`, { pauseUntilMs: until });
  }),
];
