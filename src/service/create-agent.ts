import { type FieldError, ValidationError } from "../core/errors.js";
import { DEFAULT_BLOCK_LIMIT } from "../records/core-block.js";
import { uniqueToolRules } from "../records/tool-rule.js";
import { newAgent } from "../runtime/new-agent.js";
import type { NewAgent } from "../storage/store.js";
import { checkOverrides } from "../types/override-check.js";
import type { AgentOverrides } from "../types/overrides.js";
import { checkEmbedding, type ServiceContext } from "./agent-access.js";
import type { CreateAgentRequest } from "./requests.js";

const DEFAULT_TYPE = "letta_v1_agent";

/**
 * Maps Letta's create-agent fields onto a Holdfast agent type and per-agent overrides, and
 * builds its rows. Every problem is reported at once, each at its field; nothing is written.
 */
export function agentFromRequest(
  ctx: ServiceContext,
  projectId: string,
  body: CreateAgentRequest,
): NewAgent {
  const errors: FieldError[] = [];
  const { registry, catalogue } = ctx.config;
  const typeName = body.agent_type ?? DEFAULT_TYPE;
  const type = registry.get(typeName);
  if (!type) {
    const known = registry.names().join(", ");
    throw new ValidationError("unknown agent type", [
      { path: "agent_type", message: `unknown agent type '${typeName}'; known types: ${known}` },
    ]);
  }
  const model = body.model ?? body.llm_config?.handle ?? undefined;
  if (model) {
    const problem = ctx.checkModel(model);
    if (problem)
      errors.push({ path: body.model ? "model" : "llm_config.handle", message: problem });
  } else if (!type.model) {
    const problem = ctx.checkModel(ctx.defaultModel);
    if (problem) errors.push({ path: "model", message: problem });
  }
  if (body.embedding) {
    const problem = checkEmbedding(ctx, body.embedding);
    if (problem) errors.push({ path: "embedding", message: problem });
  }
  // The type's fallbacks must be reachable too, or the agent fails only once its model is down.
  for (const handle of type.model_fallbacks) {
    const problem = ctx.checkModel(handle);
    if (problem)
      errors.push({ path: "agent_type", message: `fallback model '${handle}': ${problem}` });
  }
  const named = body.tools ?? [];
  const byId = (body.tool_ids ?? []).map((id, i) => {
    const name = toolNameOf(id, catalogue.tools);
    if (!name) errors.push({ path: `tool_ids.${i}`, message: `no tool has id '${id}'` });
    return name ?? "";
  });
  const tools = [...new Set([...named, ...byId.filter((name) => name !== "")])];
  const overrides: AgentOverrides = {
    ...(model ? { model } : {}),
    ...(body.system ? { system_prompt: body.system } : {}),
    ...(body.embedding ? { memory: { embedding: body.embedding } } : {}),
    ...(tools.length > 0 || body.include_base_tools === false
      ? {
          tools: { include: tools, ...(body.include_base_tools === false ? { allow: tools } : {}) },
        }
      : {}),
  };
  for (const error of checkOverrides(type, overrides, catalogue)) {
    errors.push({ ...error, path: toolPath(error.path, tools, { named, byId }) });
  }
  const blocks = (body.memory_blocks ?? []).map((block, i) => {
    const limit = block.limit ?? Math.max(DEFAULT_BLOCK_LIMIT, block.value.length);
    if (block.value.length > limit) {
      errors.push({
        path: `memory_blocks.${i}.value`,
        message: `${block.value.length} characters is over the limit of ${limit}`,
      });
    }
    return {
      label: block.label,
      value: block.value,
      limit,
      description: block.description ?? "",
      read_only: block.read_only ?? false,
      ...(block.tags ? { tags: [...new Set(block.tags)] } : {}),
      ...(block.metadata ? { metadata: block.metadata } : {}),
    };
  });
  blocks.forEach((block, i) => {
    if (blocks.findIndex((other) => other.label === block.label) !== i) {
      errors.push({
        path: `memory_blocks.${i}.label`,
        message: `label '${block.label}' is used twice`,
      });
    }
  });
  if (errors.length > 0) throw new ValidationError("invalid agent", errors);
  const metadata = body.metadata ?? {};
  return newAgent(
    {
      name: body.name ?? `agent-${ctx.ids.next("name").split("-").at(-1)?.slice(0, 8)}`,
      projectId,
      type,
      overrides,
      toolRules: uniqueToolRules(body.tool_rules ?? []),
      tags: body.tags ?? [],
      metadata,
      description: body.description ?? null,
      ...(body.memory_blocks ? { blocks } : {}),
    },
    ctx.ids,
    ctx.clock.now(),
  );
}

/** A tool's name from its id (`tool-<name>`, or the bare name), if the catalogue has it. */
function toolNameOf(id: string, tools: ReadonlyMap<string, unknown>): string | undefined {
  if (tools.has(id)) return id;
  const name = id.startsWith("tool-") ? id.slice(5) : id;
  return tools.has(name) ? name : undefined;
}

/** A problem with `tools.include.N` named at the request field that asked for that tool. */
function toolPath(path: string, tools: readonly string[], fields: ToolFields): string {
  const match = /^tools\.include\.(\d+)(.*)$/.exec(path);
  if (!match) return path;
  const name = tools[Number(match[1])] ?? "";
  const i = fields.named.indexOf(name);
  if (i >= 0) return `tools.${i}${match[2]}`;
  return `tool_ids.${fields.byId.indexOf(name)}${match[2]}`;
}

interface ToolFields {
  named: readonly string[];
  byId: readonly string[];
}
