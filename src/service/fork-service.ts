import { z } from "zod";
import { ConflictError, type FieldError, ValidationError } from "../core/errors.js";
import { memoryAt } from "../memory/memory-at.js";
import { committedAt } from "../records/memory-history.js";
import type { AgentMessage } from "../records/messages.js";
import { newSessionState } from "../records/session-state.js";
import { RequestToolRule, uniqueToolRules } from "../records/tool-rule.js";
import { newAgent } from "../runtime/new-agent.js";
import { checkOverrides } from "../types/override-check.js";
import {
  agentState,
  type ResolvedAgent,
  requireAgent,
  type ServiceContext,
} from "./agent-access.js";
import type { AgentStateView } from "./letta-views.js";

/** `POST /v1/agents/{agent_id}/fork`: where to fork, and what to change from there. */
export const ForkRequest = z.strictObject({
  /** Fork after this message: the new agent's history ends with it. */
  message_id: z.string().min(1).max(200).optional(),
  /** Fork at the end of this (finished) run of the agent. */
  run_id: z.string().min(1).max(200).optional(),
  name: z.string().min(1).max(200).optional(),
  agent_type: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(300).optional(),
  tool_rules: z.array(RequestToolRule).max(200).optional(),
});
export type ForkRequest = z.infer<typeof ForkRequest>;

const ALL = { limit: Number.MAX_SAFE_INTEGER, order: "asc" } as const;

/**
 * Forks an agent at a point of its history: a new, ordinary agent of the same project with the
 * history up to that point and the memory (core blocks, archival passages) as it was there,
 * optionally with another type, model or tool rules. Later changes of either stay their own.
 */
export class ForkService {
  constructor(private readonly ctx: ServiceContext) {}

  async fork(projectId: string, agentId: string, body: ForkRequest): Promise<AgentStateView> {
    const source = await requireAgent(this.ctx, projectId, agentId);
    const { store } = this.ctx;
    const messages = await store.listMessages(agentId, ALL);
    const upTo = await this.point(agentId, messages, body);
    const history = messages.slice(0, upTo);
    checkWellFormed(history);
    const memory = memoryAt(
      await store.memoryHistory(agentId),
      await store.listPassages(agentId, ALL),
      committedAt(history.length),
    );
    if (!memory.ok) throw new ConflictError(memory.reason);
    const created = newAgent(
      {
        name: body.name ?? `${source.record.name} (fork)`,
        projectId,
        type: this.typeOf(source, body),
        overrides: { ...source.overrides, ...(body.model ? { model: body.model } : {}) },
        toolRules: uniqueToolRules(body.tool_rules ?? source.record.tool_rules),
        tags: source.record.tags,
        metadata: { ...source.record.metadata, forked_from: forkedFrom(agentId, history) },
        description: source.record.description,
        blocks: memory.blocks.map(({ id: _id, ...block }) => block),
      },
      this.ctx.ids,
      this.ctx.clock.now(),
    );
    const newId = created.agent.id;
    const copied = history.map((message) => ({ ...message, id: this.ctx.ids.next("message") }));
    const passages = memory.passages.map((p) => ({ ...p, id: this.ctx.ids.next("passage") }));
    await store.createAgent(created);
    try {
      await store.commit({
        agentId: newId,
        state: newSessionState(this.ctx.ids.next("session")),
        messages: copied,
        memory: { blocks: [], passages },
      });
    } catch (error) {
      // The agent and its history are one creation: without its history, no agent.
      await store.deleteAgent(newId);
      throw error;
    }
    return agentState(this.ctx, await requireAgent(this.ctx, projectId, newId));
  }

  /** How many of the agent's messages the fork keeps. */
  private async point(
    agentId: string,
    messages: readonly AgentMessage[],
    body: ForkRequest,
  ): Promise<number> {
    const given = [body.message_id && "message_id", body.run_id && "run_id"].filter(Boolean);
    if (given.length !== 1) {
      throw new ValidationError("a fork needs one point", [
        { path: "message_id", message: "give exactly one of message_id and run_id" },
      ]);
    }
    if (body.message_id) {
      const index = messages.findIndex((message) => message.id === body.message_id);
      if (index < 0)
        throw invalid("message_id", `no message '${body.message_id}' in this agent's history`);
      return index + 1;
    }
    const run = await this.ctx.store.getRun(body.run_id ?? "");
    if (!run || run.agent_id !== agentId) {
      throw invalid("run_id", `no run '${body.run_id}' of this agent`);
    }
    if (run.status === "running") {
      throw new ConflictError(
        `run '${run.id}' has not finished; fork at one of its messages or wait`,
      );
    }
    const last = messages.findLastIndex((message) => message.run_id === run.id);
    if (last < 0) throw invalid("run_id", `run '${run.id}' has no messages`);
    return last + 1;
  }

  private typeOf(source: ResolvedAgent, body: ForkRequest) {
    const errors: FieldError[] = [];
    const type = body.agent_type ? this.ctx.config.registry.get(body.agent_type) : source.type;
    if (!type) {
      const known = this.ctx.config.registry.names().join(", ");
      errors.push({
        path: "agent_type",
        message: `unknown agent type '${body.agent_type}'; known types: ${known}`,
      });
    }
    const problem = body.model ? this.ctx.checkModel(body.model) : undefined;
    if (problem) errors.push({ path: "model", message: problem });
    // The source's own overrides must fit the new type, as they must at creation.
    const widened = type ? checkOverrides(type, source.overrides, this.ctx.config.catalogue) : [];
    for (const error of widened) errors.push({ ...error, path: "agent_type" });
    if (!type || errors.length > 0) throw new ValidationError("invalid fork", errors);
    return type;
  }
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(message, [{ path, message }]);
}

/**
 * A fork point must not split a tool call from its result: the new agent would start with a
 * call it never answers (a model provider refuses such a history).
 */
function checkWellFormed(history: readonly AgentMessage[]): void {
  const open = new Map<string, string>();
  for (const message of history) {
    if (message.message_type === "tool_call_message") {
      open.set(message.tool_call.tool_call_id, message.tool_call.name);
    }
    if (message.message_type === "tool_return_message") open.delete(message.tool_call_id);
  }
  if (open.size > 0) {
    const calls = [...open.values()].map((name) => `'${name}'`).join(", ");
    throw new ConflictError(
      `at that point the call of ${calls} has no result yet; fork at its result or later`,
    );
  }
}

function forkedFrom(agentId: string, history: readonly AgentMessage[]) {
  return { agent_id: agentId, message_id: history.at(-1)?.id ?? null };
}
