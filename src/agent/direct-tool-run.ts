import { NotFoundError, ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import { StagedMemory } from "../memory/staged-memory.js";
import type { SessionState } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import { checkToolCall } from "../types/capabilities.js";
import { needsApproval } from "./decide.js";
import { runWithTimeout } from "./execute-tool.js";
import type { LoopDeps, TurnAgent } from "./run-turn.js";

/** What running a tool needs besides the agent: its deps as a turn has them, and its session. */
export type DirectRunDeps = Pick<LoopDeps, "tools" | "store" | "clock" | "ids" | "workspace">;

/**
 * Letta's `run_tool_for_agent`, under the agent's own rules: the tool must be one its type
 * offers it (the ceiling, allow and deny lists), one this server can run, one that changes no
 * memory (memory tools commit with a step, so they run only in turns), and one its approval
 * policy and tool rules let run without a person's approval. It runs in the agent's workspace
 * and sandbox with its timeout; nothing is committed, and no message is written.
 */
export async function runToolDirectly(
  agent: TurnAgent,
  state: SessionState,
  deps: DirectRunDeps,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const refuse = (message: string) => {
    throw new ValidationError(message, [{ path: "tool_name", message }]);
  };
  const { capabilities } = agent.config;
  const offered = capabilities.offered.some((grant) => grant.name === name);
  if (!offered)
    throw new NotFoundError(
      "tool",
      name,
      capabilities.offered.map((g) => g.name),
    );
  const allowed = checkToolCall(capabilities, name);
  if (!allowed.allowed) refuse(allowed.reason);
  const tool = deps.tools.get(name);
  if (!tool) return refuse(`tool '${name}' is not available on this server`);
  if (tool.stagedEffects) {
    refuse(
      `'${name}' changes the agent's memory, which commits with a step: it runs only in a turn (POST /v1/agents/{id}/messages), or edit memory through its routes`,
    );
  }
  if (needsApproval(name, state, agent.config)) {
    refuse(
      `'${name}' needs a person's approval under this agent's policy or tool rules: send a message, and approve the call`,
    );
  }
  const parsed = tool.declaration.parameters.safeParse(args);
  if (!parsed.success) {
    throw new ValidationError(
      `invalid arguments for '${name}'`,
      fieldErrorsFromZod(parsed.error, ["args"]),
    );
  }
  const blocks = await deps.store.loadBlocks(agent.id);
  const search = {
    searchPassages: (query: string, options: Parameters<typeof deps.store.searchPassages>[2]) =>
      deps.store.searchPassages(agent.id, query, options),
    searchMessages: (query: string, options: Parameters<typeof deps.store.searchMessages>[2]) =>
      deps.store.searchMessages(agent.id, query, options),
  };
  return runWithTimeout(tool, parsed.data, {
    agentId: agent.id,
    workspace: deps.workspace,
    // Read only: the tool changes no memory (checked above), and nothing is drained from it.
    memory: new StagedMemory(blocks, search, deps.ids, deps.clock),
    clock: deps.clock,
    idempotencyKey: `direct:${deps.ids.next("tool_run")}`,
    runId: null,
  });
}
