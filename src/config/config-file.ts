import { z } from "zod";
import type { FieldError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import { safeParseOnce } from "../core/tiered-parse.js";
import { ProviderSettings } from "../llm/provider-settings.js";
import { Durability } from "../storage/durability.js";
import {
  BUILTIN_PACKS,
  builtinToolCatalogue,
  type ToolCatalogue,
  withPacks,
} from "../tools/catalogue.js";
import {
  type McpServerConfig,
  McpServersSection,
  mcpPackName,
} from "../tools/mcp/mcp-server-config.js";
import { ToolName } from "../tools/tool-declaration.js";
import { TypeName } from "../types/agent-type.js";
import { AgentTypeDraft, TypeDefaults } from "../types/agent-type-draft.js";
import { BUILTIN_TYPES } from "../types/builtins.js";
import { AgentTypeRegistry } from "../types/registry.js";
import { explainRemovedField } from "../types/removed-fields.js";
import { type DraftSource, resolveAgentTypes } from "../types/resolve.js";
import type { ChainDefinition } from "./chain-definition.js";
import { resolveChains } from "./chains.js";
import { DEFAULT_OBSERVABILITY, ObservabilitySection } from "./observability-section.js";
import { SandboxSection } from "./sandbox-section.js";
import { DEFAULT_TOOLS_SECTION, ToolsSection, withWebSection } from "./web-section.js";

/** The `server:` section: where the server listens, keeps its data, and how durably. */
export const ServerSection = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.int().min(0).max(65_535).optional(),
  data_dir: z.string().min(1).optional(),
  durability: Durability.optional(),
  /** A PostgreSQL URL: the store is then PostgreSQL instead of SQLite in `data_dir`. */
  pg_url: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, "a PostgreSQL URL: postgres://user:password@host/database")
    .optional(),
  /** Connections to PostgreSQL kept open at most (default 10). */
  pg_pool_size: z.int().min(1).max(1_000).optional(),
  /** `embedded` (default) or `restate`: agents as Restate virtual objects on workers. */
  engine: z.enum(["embedded", "restate"]).optional(),
  /** Restate's ingress URL (default http://127.0.0.1:8080). */
  restate_ingress: z.url({ protocol: /^https?$/ }).optional(),
  /** Restate's admin API URL, where workers register (default http://127.0.0.1:9070). */
  restate_admin: z.url({ protocol: /^https?$/ }).optional(),
});
export type ServerSection = z.infer<typeof ServerSection>;

const PackName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, "a pack name is lowercase, digits, _ or -");

/** The top level of `holdfast.yaml` / `holdfast.json`. Each section is checked on its own. */
const ConfigSections = z.strictObject({
  server: z.unknown().optional(),
  providers: z.unknown().optional(),
  sandbox: z.unknown().optional(),
  tools: z.unknown().optional(),
  defaults: z.unknown().optional(),
  tool_packs: z.unknown().optional(),
  mcp_servers: z.unknown().optional(),
  types: z.record(z.string(), z.unknown()).optional(),
  chains: z.record(z.string(), z.unknown()).optional(),
  observability: z.unknown().optional(),
});

/** A checked configuration: the server section, the catalogue with packs, and every type. */
export interface HoldfastConfig {
  readonly server: ServerSection;
  /** Keys and base URLs of model providers; env variables fill what is missing. */
  readonly providers: ProviderSettings;
  /** How the shell runs commands; start-up checks that the sandbox asked for works. */
  readonly sandbox: SandboxSection;
  /** Settings of built-in tools (`tools.web`: search provider, address guard, limits). */
  readonly tools: ToolsSection;
  readonly catalogue: ToolCatalogue;
  /**
   * MCP servers by name. Each one's tools form the pack `mcp:NAME`, which exists (empty) from
   * the start, so types may name it before the server has connected.
   */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly registry: AgentTypeRegistry;
  /** Chains of agents, by name, in the order the file lists them. */
  readonly chains: ReadonlyMap<string, ChainDefinition>;
  /** Who may read `/metrics`, and model prices for run costs. */
  readonly observability: ObservabilitySection;
}

export type ConfigResult =
  | { ok: true; config: HoldfastConfig }
  | { ok: false; errors: FieldError[] };

/** The configuration with no file: the built-in types and tools. */
export function builtinConfig(): HoldfastConfig {
  const result = checkConfig({});
  if (!result.ok)
    throw new Error(`the built-in types do not resolve: ${JSON.stringify(result.errors)}`);
  return result.config;
}

/**
 * Checks a parsed config document and builds what it describes. Every problem is collected,
 * each with its full path, so that one run of `holdfast config check` shows them all.
 */
export function checkConfig(document: unknown): ConfigResult {
  const top = safeParseOnce(ConfigSections, document ?? {});
  if (!top.success)
    return { ok: false, errors: fieldErrorsFromZod(top.error, [], explainRemovedField) };
  const errors: FieldError[] = [];
  const section = <T>(schema: z.ZodType<T>, value: unknown, path: string): T | undefined => {
    const parsed = safeParseOnce(schema, value);
    if (parsed.success) return parsed.data;
    errors.push(...fieldErrorsFromZod(parsed.error, [path], explainRemovedField));
    return undefined;
  };

  const server = section(ServerSection, top.data.server ?? {}, "server") ?? {};
  const providers = section(ProviderSettings, top.data.providers ?? {}, "providers") ?? {};
  const sandbox = section(SandboxSection, top.data.sandbox ?? {}, "sandbox") ?? { mode: "bwrap" };
  const tools = section(ToolsSection, top.data.tools ?? {}, "tools") ?? DEFAULT_TOOLS_SECTION;
  const defaults = section(TypeDefaults, top.data.defaults ?? {}, "defaults") ?? {};
  const packs =
    section(z.record(PackName, z.array(ToolName)), top.data.tool_packs ?? {}, "tool_packs") ?? {};
  const observability =
    section(ObservabilitySection, top.data.observability ?? {}, "observability") ??
    DEFAULT_OBSERVABILITY;
  const mcpServers = section(McpServersSection, top.data.mcp_servers ?? {}, "mcp_servers") ?? {};
  const mcpPacks = Object.fromEntries(
    Object.keys(mcpServers).map((name) => [mcpPackName(name), []]),
  );
  const catalogue = withPacks(
    withWebSection(addPacks(builtinToolCatalogue(), packs, errors), tools.web),
    mcpPacks,
  );

  const sources: DraftSource[] = BUILTIN_TYPES.map(({ name, draft }) => ({
    name,
    draft,
    path: ["builtin", name],
  }));
  const invalid = new Set<string>();
  for (const [name, value] of Object.entries(top.data.types ?? {})) {
    const path = ["types", name];
    const badName = TypeName.safeParse(name).error?.issues[0]?.message;
    if (badName) {
      errors.push({ path: `types.${name}`, message: badName });
      continue;
    }
    if (sources.some((source) => source.name === name)) {
      errors.push({
        path: `types.${name}`,
        message: `'${name}' is a built-in type; give your type a new name and 'extends: ${name}'`,
      });
      continue;
    }
    const draft = section(AgentTypeDraft, value, `types.${name}`);
    if (!draft) invalid.add(name);
    sources.push({ name, draft: draft ?? {}, path });
  }
  const resolution = resolveAgentTypes(sources, defaults, catalogue, invalid);
  errors.push(...resolution.errors);
  const registry = new AgentTypeRegistry(resolution.types);
  const chains = resolveChains(top.data.chains ?? {}, registry, catalogue);
  errors.push(...chains.errors);
  if (errors.length > 0) return { ok: false, errors };
  const byName = new Map(chains.chains.map((chain) => [chain.name, chain]));
  return {
    ok: true,
    config: {
      server,
      providers,
      sandbox,
      tools,
      catalogue,
      mcpServers,
      registry,
      chains: byName,
      observability,
    },
  };
}

/** Adds the file's packs to the catalogue, reporting clashes and unknown tools. */
function addPacks(
  catalogue: ToolCatalogue,
  packs: Record<string, string[]>,
  errors: FieldError[],
): ToolCatalogue {
  const good: Record<string, string[]> = {};
  for (const [name, members] of Object.entries(packs)) {
    if (Object.hasOwn(BUILTIN_PACKS, name)) {
      errors.push({
        path: `tool_packs.${name}`,
        message: `'${name}' is a built-in pack; choose another name`,
      });
      continue;
    }
    const unknown = members.flatMap((tool, i) => (catalogue.tools.has(tool) ? [] : [{ tool, i }]));
    for (const { tool, i } of unknown) {
      errors.push({ path: `tool_packs.${name}.${i}`, message: `unknown tool '${tool}'` });
    }
    good[name] = members.filter((tool) => catalogue.tools.has(tool));
  }
  return withPacks(catalogue, good);
}
