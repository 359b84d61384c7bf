import type { HoldfastConfig } from "../config/config-file.js";
import { prepareSandbox } from "../config/sandbox-section.js";
import { prepareWebTools } from "../config/web-section.js";
import { builtinImplementations } from "../server/builtin-tools.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import { LiveToolCatalogue } from "../tools/live-catalogue.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { depthBehaviour } from "../types/depth-behaviour.js";
import { loadConfigOrExit } from "./load.js";
import type { TypesOptions } from "./types-command.js";

/** `holdfast types list`: every type, with how many tools it is offered. */
export async function listTypes(options: TypesOptions): Promise<void> {
  const config = await configAsServed(options.config);
  const list = config.registry.list();
  if (options.json) return console.log(JSON.stringify(list, null, 2));
  const width = Math.max(...list.map((type) => type.name.length));
  for (const type of list) {
    const offered = effectiveCapabilities(type, {}, config.catalogue).offered.length;
    const flow = type.control_flow.padEnd(11);
    console.log(
      `${type.name.padEnd(width)}  ${flow}  ${String(offered).padStart(2)} tools  ${type.description}`,
    );
  }
}

/** `holdfast types show NAME`: one type's effective capabilities. */
export async function showType(name: string, options: TypesOptions): Promise<void> {
  const config = await configAsServed(options.config);
  const type = config.registry.get(name);
  if (!type) {
    console.error(
      `unknown agent type '${name}'; known types: ${config.registry.names().join(", ")}`,
    );
    process.exit(1);
  }
  const capabilities = effectiveCapabilities(type, {}, config.catalogue);
  if (options.json) return console.log(JSON.stringify({ ...type, capabilities }, null, 2));
  console.log(`${type.name}: ${type.description}`);
  console.log(formatCapabilities(capabilities));
}

/**
 * The config as a server on this machine would run it before any MCP server connects: without
 * a working sandbox the shell is withheld, without a search provider web_search, a declared
 * tool nothing implements too, and the types shown here say so with the same reasons.
 */
async function configAsServed(configFlag: string | undefined): Promise<HoldfastConfig> {
  const { config } = loadConfigOrExit(configFlag);
  const { config: sandboxed, detection } = await prepareSandbox(config, []);
  const { config: prepared, web } = prepareWebTools(sandboxed, process.env);
  const sandbox = detection.ok ? detection.sandbox : null;
  // The file tools need a store to run; the types shown here only need them to exist.
  const builtin = builtinImplementations(prepared, sandbox, web, createInMemoryStore().folders);
  return { ...prepared, catalogue: new LiveToolCatalogue(prepared.catalogue, builtin) };
}

function formatCapabilities(caps: EffectiveCapabilities): string {
  const lines = [
    `  control flow   ${caps.control_flow}${caps.include_history ? "" : " (without history)"}`,
    `  model          ${caps.model ?? "(server default)"}${caps.model_fallbacks.length > 0 ? `, then ${caps.model_fallbacks.join(", ")}` : ""}`,
    `  replies via    ${caps.reply_via}`,
    `  tool access    ${caps.access}, policy profile ${caps.policy_profile}`,
    `  heartbeats     ${caps.heartbeats ? "on" : "off"}`,
    `  memory         ${caps.memory.depth}; core ${onOff(caps.memory.core_memory)}, archival ${onOff(caps.memory.archival)}, conversation search ${onOff(caps.memory.conversation_search)}`,
    `                 ${depthBehaviour(caps.memory)}`,
    `  limits         ${caps.limits.max_iterations} iterations, ${caps.limits.max_tool_calls_per_turn} tool calls and ${caps.limits.max_tokens_per_turn} tokens per turn, spawn depth ${caps.limits.max_spawn_depth}`,
    `  isolation      ${caps.isolation.read_only ? "read-only" : "read-write"}, workspace ${caps.isolation.workspace_root ?? "(server default)"}, network ${onOff(caps.isolation.network)}`,
    `  offered tools${caps.offered.length === 0 ? "  (none)" : ""}`,
    ...caps.offered.map(
      (t) => `    ${t.name.padEnd(24)} ${t.risk.padEnd(7)} approval ${t.approval}`,
    ),
  ];
  if (caps.withheld.length > 0) lines.push("  withheld tools");
  lines.push(...caps.withheld.map((t) => `    ${t.name.padEnd(24)} ${t.reason}`));
  return lines.join("\n");
}

const onOff = (on: boolean) => (on ? "on" : "off");
