import { NotFoundError, ValidationError } from "../core/errors.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { ToolRule } from "../records/tool-rule.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import { approvalRequiredBy } from "../types/approval-policy.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { checkOverrides } from "../types/override-check.js";
import type { AgentOverrides } from "../types/overrides.js";
import {
  agentState,
  changeAgent,
  type ResolvedAgent,
  requireAgent,
  type ServiceContext,
} from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import { type AgentStateView, toolView } from "./letta-views.js";
import type { ListQuery } from "./requests.js";

export type ToolView = ReturnType<typeof toolView>;

/** Filters of `GET /v1/tools`; each narrows the list further. */
export interface ToolFilters {
  /** Exactly this name. */
  name?: string | undefined;
  /** Any of these names. */
  names?: readonly string[] | undefined;
  /** Any of these ids (`tool-<name>`). */
  toolIds?: readonly string[] | undefined;
  /** A case-insensitive part of the name. */
  search?: string | undefined;
}

/** Why Holdfast refuses to create, change or delete tools through the API. */
export const CUSTOM_TOOLS_UNSUPPORTED =
  "custom tools with source code are not supported by Holdfast, which runs no Python it is sent; serve the tool from an MCP server (POST /v1/mcp-servers or mcp_servers in holdfast.yaml) or run it in your own code as a client tool (client_tools on the message request)";

/**
 * Tools: the server's catalogue (built-in tools and MCP servers' tools), and which of them each agent has. Attaching
 * and detaching edit the agent's overrides, which only ever narrow its type: a tool beyond the
 * type's ceiling is refused with the reason, never granted.
 */
export class ToolService {
  constructor(protected readonly ctx: ServiceContext) {}

  /** The catalogue as Letta's tools, paged like every Letta list. */
  list(query: ListQuery, filters: ToolFilters = {}): ToolView[] {
    const search = filters.search?.toLowerCase();
    const tools = [...this.ctx.config.catalogue.tools.values()].filter(
      (tool) =>
        (filters.name === undefined || tool.name === filters.name) &&
        (!filters.names?.length || filters.names.includes(tool.name)) &&
        (!filters.toolIds?.length || filters.toolIds.includes(toolView(tool).id)) &&
        (search === undefined || tool.name.toLowerCase().includes(search)),
    );
    return pageOf(
      tools.map((tool) => toolView(tool)),
      query,
    );
  }

  get(toolId: string): ToolView {
    return toolView(this.requireTool(toolId));
  }

  /**
   * Creating, upserting, changing or deleting a tool: always refused, since Holdfast runs no
   * source code it is sent (tools come from built-ins and MCP servers). A tool id that names
   * nothing is reported as missing first.
   */
  refuseCustom(toolId?: string): never {
    if (toolId !== undefined) this.requireTool(toolId);
    throw new ValidationError(CUSTOM_TOOLS_UNSUPPORTED, [
      { path: "source_code", message: CUSTOM_TOOLS_UNSUPPORTED },
    ]);
  }

  /** The tools the agent is offered, with whether each call of them needs approval. */
  async listForAgent(projectId: string, agentId: string, query: ListQuery): Promise<ToolView[]> {
    const agent = await requireAgent(this.ctx, projectId, agentId);
    const capabilities = this.capabilitiesOf(agent.type, agent.overrides);
    const tools = capabilities.offered.flatMap((grant) => {
      const tool = this.ctx.config.catalogue.tools.get(grant.name);
      return tool
        ? [toolView(tool, needsApproval(capabilities, agent.record.tool_rules, tool))]
        : [];
    });
    return pageOf(tools, query);
  }

  /** Offers the tool to the agent, if its type allows; otherwise a 422 saying why not. */
  /**
   * Letta's `run_tool_for_agent`: runs one of the agent's tools now, between its turns, under
   * its type's ceiling, rules and approval policy, in its sandbox (`agent/direct-tool-run.ts`),
   * and answers Letta's `ToolExecutionResult`. Nothing is committed.
   */
  async run(projectId: string, agentId: string, name: string, args: Record<string, unknown>) {
    await requireAgent(this.ctx, projectId, agentId);
    const result = await this.ctx.engine.runTool(agentId, name, args);
    return {
      status: result.status,
      func_return: result.output,
      stdout: null,
      stderr: null,
      agent_state: null,
      sandbox_config_fingerprint: null,
    };
  }

  async attach(projectId: string, agentId: string, toolId: string): Promise<AgentStateView> {
    const tool = this.requireTool(toolId);
    return this.mutate(projectId, agentId, (agent) => this.attached(agent, tool));
  }

  private attached(agent: ResolvedAgent, tool: ToolDeclaration): { overrides: AgentOverrides } {
    const own = agent.overrides.tools ?? {};
    const deny = (own.deny ?? []).filter((name) => name !== tool.name);
    let overrides = withTools(agent.overrides, { deny });
    if (!this.offers(agent.type, overrides, tool.name)) {
      overrides = withTools(overrides, {
        include: [...(own.include ?? []), tool.name],
        // The agent's own allow list is the user's choice too: attaching widens it, within the type.
        ...(own.allow && !own.allow.includes(tool.name)
          ? { allow: [...own.allow, tool.name] }
          : {}),
      });
      // Only this tool's entry counts: one included before whose source has gone since (an MCP
      // server removed or renamed) is merely withheld, and must not block attaching another.
      const entry = `tools.include.${(own.include ?? []).length}`;
      const errors = checkOverrides(agent.type, overrides, this.ctx.config.catalogue)
        .filter((e) => !e.path.startsWith("tools.include.") || e.path === entry)
        .map((e) => (e.path === entry ? { ...e, path: "tool_id" } : e));
      const withheld = this.capabilitiesOf(agent.type, overrides).withheld.find(
        (w) => w.name === tool.name,
      );
      if (withheld || errors.length > 0) {
        const reason = withheld?.reason ?? errors.map((e) => e.message).join("; ");
        throw new ValidationError(
          `tool '${tool.name}' cannot be attached: ${reason}`,
          errors.length > 0 ? errors : [{ path: "tool_id", message: reason }],
        );
      }
    }
    return { overrides };
  }

  /** Stops offering the tool, even one that comes with the agent's type. */
  async detach(projectId: string, agentId: string, toolId: string): Promise<AgentStateView> {
    const tool = this.requireTool(toolId);
    return this.mutate(projectId, agentId, (agent) => {
      const own = agent.overrides.tools ?? {};
      const deny = own.deny ?? [];
      const overrides = withTools(agent.overrides, {
        include: (own.include ?? []).filter((name) => name !== tool.name),
        deny: deny.includes(tool.name) ? deny : [...deny, tool.name],
      });
      return { overrides };
    });
  }

  /**
   * Adds or removes the agent's `requires_approval` rule for the tool. Turning approval off for
   * a tool whose approval a policy requires (the type's, or the agent's own overrides) is a 422
   * naming that policy: an agent may tighten its type, never loosen it.
   */
  async setApproval(
    projectId: string,
    agentId: string,
    toolName: string,
    requiresApproval: boolean,
  ): Promise<AgentStateView> {
    const tool = this.requireTool(toolName);
    return this.mutate(projectId, agentId, (agent) => {
      const rules = agent.record.tool_rules.filter((rule) => !isApprovalRule(rule, tool.name));
      if (!requiresApproval) this.refuseLoosening(agent, tool);
      if (requiresApproval) {
        if (!this.offers(agent.type, agent.overrides, tool.name))
          throw new ValidationError(`tool '${tool.name}' is not attached to this agent`, [
            { path: "tool_name", message: `'${tool.name}' is not offered to this agent` },
          ]);
        rules.push({ type: "requires_approval", tool_name: tool.name });
      }
      return { tool_rules: rules };
    });
  }

  /** Throws when a policy, not the agent's own rule, makes the tool need approval. */
  private refuseLoosening(agent: ResolvedAgent, tool: ToolDeclaration): void {
    const grant = this.capabilitiesOf(agent.type, agent.overrides).offered.find(
      (g) => g.name === tool.name,
    );
    if (grant === undefined || grant.approval === "never") return;
    const policy =
      approvalRequiredBy(agent.type, agent.overrides, tool) ??
      `agent type '${agent.type.name}' requires approval for '${tool.name}'`;
    const message = `${policy}; an agent may not loosen it`;
    throw new ValidationError(message, [{ path: "body_requires_approval", message }]);
  }

  /**
   * Reads the agent, computes a change and writes it, all in the agent's mailbox, so two
   * changes never lose each other; then reloads the agent and shows its new state.
   */
  private async mutate(
    projectId: string,
    agentId: string,
    change: (agent: ResolvedAgent) => { overrides?: AgentOverrides; tool_rules?: ToolRule[] },
  ): Promise<AgentStateView> {
    const {
      agent,
      change: changed,
      record,
    } = await changeAgent(this.ctx, projectId, agentId, change);
    return this.changedView(agent, changed, record);
  }

  /** The agent's new state, tools as it now has them. */
  private async changedView(
    agent: ResolvedAgent,
    change: { overrides?: AgentOverrides; tool_rules?: ToolRule[] },
    record: AgentRecord,
  ): Promise<AgentStateView> {
    const overrides = change.overrides ?? agent.overrides;
    const state = await agentState(this.ctx, { ...agent, record, overrides });
    const capabilities = this.capabilitiesOf(agent.type, overrides);
    const tools = state.tools.map((view) => {
      const tool = this.ctx.config.catalogue.tools.get(view.name);
      if (!tool) return view;
      return {
        ...view,
        default_requires_approval: needsApproval(capabilities, record.tool_rules, tool),
      };
    });
    return { ...state, tools };
  }

  /** The catalogue's tool by id (`tool-<name>`) or by plain name; a 404 naming the known ids. */
  private requireTool(toolId: string): ToolDeclaration {
    const { tools } = this.ctx.config.catalogue;
    const name = toolId.startsWith("tool-") && !tools.has(toolId) ? toolId.slice(5) : toolId;
    const tool = tools.get(name);
    if (!tool)
      throw new NotFoundError(
        "tool",
        toolId,
        [...tools.keys()].map((known) => `tool-${known}`),
      );
    return tool;
  }

  private capabilitiesOf(type: ResolvedAgent["type"], overrides: AgentOverrides) {
    return effectiveCapabilities(type, overrides, this.ctx.config.catalogue);
  }

  private offers(type: ResolvedAgent["type"], overrides: AgentOverrides, name: string): boolean {
    return this.capabilitiesOf(type, overrides).offered.some((grant) => grant.name === name);
  }
}

/** The overrides with some tool fields replaced; empty lists are dropped to keep records tidy. */
function withTools(
  overrides: AgentOverrides,
  change: NonNullable<AgentOverrides["tools"]>,
): AgentOverrides {
  const merged = { ...overrides.tools, ...change };
  for (const key of ["packs", "include", "deny"] as const)
    if (merged[key]?.length === 0) delete merged[key];
  const { tools: _old, ...rest } = overrides;
  return Object.keys(merged).length > 0 ? { ...rest, tools: merged } : rest;
}

const isApprovalRule = (rule: ToolRule, name: string) =>
  rule.type === "requires_approval" && rule.tool_name === name;

/** Whether a call needs approval: by the type's policy, or by the agent's own tool rule. */
function needsApproval(
  capabilities: EffectiveCapabilities,
  rules: readonly ToolRule[],
  tool: ToolDeclaration,
): boolean {
  const grant = capabilities.offered.find((g) => g.name === tool.name);
  return (
    (grant !== undefined && grant.approval !== "never") ||
    rules.some((rule) => isApprovalRule(rule, tool.name))
  );
}
