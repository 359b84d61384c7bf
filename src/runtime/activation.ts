import { HistoryWindow } from "../agent/history-window.js";
import { DEFAULT_HISTORY_LIMIT } from "../agent/perform-step.js";
import type { TurnAgent } from "../agent/run-turn.js";
import { spawnTools } from "../agent/spawn-tools.js";
import { createTurnAgent } from "../agent/turn-agent.js";
import type { HoldfastConfig } from "../config/config-file.js";
import type { Clock } from "../core/clock.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import type { IdSource } from "../core/ids.js";
import { safeParseTiered } from "../core/tiered-parse.js";
import { withFallbacks } from "../llm/fallback.js";
import type { ModelAdapter } from "../llm/model.js";
import type { AgentRecord } from "../records/agent-record.js";
import { newSessionState, type SessionState } from "../records/session-state.js";
import type { Store } from "../storage/store.js";
import type { ToolImplementation, Workspace } from "../tools/tool.js";
import type { AgentType } from "../types/agent-type.js";
import { effectiveCapabilities } from "../types/capabilities.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { AgentOverrides } from "../types/overrides.js";

/** An agent in memory: what its turns need, loaded once per activation. */
export interface Activation {
  record: AgentRecord;
  type: AgentType;
  overrides: AgentOverrides;
  agent: TurnAgent;
  model: ModelAdapter;
  tools: ReadonlyMap<string, ToolImplementation>;
  /** The version of the tool catalogue `agent` and `tools` were made from. */
  catalogueVersion: number | undefined;
  workspace: Workspace;
  /** The session as last committed. */
  state: SessionState;
  /** Aborts the run in progress (cancel). */
  controller: AbortController | null;
  /** The newest messages, kept in memory between turns. */
  history: HistoryWindow;
  /**
   * Set when a run failed part-way: `state` and `history` may be behind the store, and are
   * reloaded before the agent does anything else, so no step ever runs twice.
   */
  stale: boolean;
  /** Its session is being handed to another agent: new work waits (BUSY) until that is done. */
  handingOver: boolean;
  /** Its run is being cancelled: answers of its children wait, so it does not carry on. */
  cancelling: boolean;
}

export interface ActivationSources {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: HoldfastConfig;
  readonly ids: IdSource;
  /** What can run, by name; a live catalogue refills it as its sources change. */
  readonly tools: ReadonlyMap<string, ToolImplementation>;
  modelFor(handle: string): ModelAdapter;
  readonly defaultModel: string;
  /** The agent's workspace, with the read-only and network switches of its capabilities. */
  workspaceFor(record: AgentRecord, isolation: EffectiveCapabilities["isolation"]): Workspace;
  /** Removes a deleted agent's workspace and its files; none when workspaces are not on disk. */
  dropWorkspace?(record: AgentRecord): Promise<void>;
}

type AgentParts = Pick<
  Activation,
  "record" | "type" | "overrides" | "agent" | "model" | "workspace" | "tools" | "catalogueVersion"
>;

/** The agent's record, its type resolved with its overrides, its model and workspace. */
async function loadParts(agentId: string, sources: ActivationSources): Promise<AgentParts> {
  const record = await sources.store.getAgent(agentId);
  if (!record) throw new NotFoundError("agent", agentId);
  const { registry, catalogue } = sources.config;
  const type = registry.get(record.agent_type);
  if (!type) throw new NotFoundError("agent type", record.agent_type, registry.names());
  const parsed = safeParseTiered(AgentOverrides, record.overrides);
  if (!parsed.success) {
    throw new ValidationError("stored overrides are invalid", fieldErrorsFromZod(parsed.error));
  }
  const agent = createTurnAgent({
    id: record.id,
    type,
    overrides: parsed.data,
    rules: record.tool_rules,
    catalogue,
    contextAfter: record.context_after,
    capabilities: sharedCapabilities(sources, type, parsed.data),
  });
  const caps = agent.config.capabilities;
  return {
    record,
    type,
    overrides: parsed.data,
    agent,
    tools: sharedFor(sources).tools,
    catalogueVersion: catalogue.version,
    model: withFallbacks(
      [caps.model ?? sources.defaultModel, ...caps.model_fallbacks].map((handle) =>
        sources.modelFor(handle),
      ),
    ),
    workspace: sources.workspaceFor(record, caps.isolation),
  };
}

/**
 * What every activation of the same sources and catalogue version shares instead of holding
 * its own copy (idle agents are many): the tools, and the capabilities of each type under each
 * set of overrides. Never changed once made; a new catalogue version makes new ones.
 */
interface Shared {
  version: number | undefined;
  tools: ReadonlyMap<string, ToolImplementation>;
  /** By type object (a type redefined is another object), then by its overrides' JSON. */
  capabilities: WeakMap<AgentType, Map<string, EffectiveCapabilities>>;
}
const SHARED = new WeakMap<ActivationSources, Shared>();
/** Distinct overrides kept per type; past it the cache starts again (agents rarely differ). */
const MAX_SHARED_CAPABILITIES = 1_000;

function sharedFor(sources: ActivationSources): Shared {
  const version = sources.config.catalogue.version;
  let shared = SHARED.get(sources);
  // A catalogue without a version is a fixed one: it never changes.
  if (!shared || shared.version !== version) {
    shared = { version, tools: toolsFor(sources), capabilities: new WeakMap() };
    SHARED.set(sources, shared);
  }
  return shared;
}

function sharedCapabilities(
  sources: ActivationSources,
  type: AgentType,
  overrides: AgentOverrides,
): EffectiveCapabilities {
  const byType = sharedFor(sources).capabilities;
  let ofType = byType.get(type);
  if (!ofType) {
    ofType = new Map();
    byType.set(type, ofType);
  }
  const key = JSON.stringify(overrides);
  let found = ofType.get(key);
  if (!found) {
    if (ofType.size >= MAX_SHARED_CAPABILITIES) ofType.clear();
    found = effectiveCapabilities(type, overrides, sources.config.catalogue);
    ofType.set(key, found);
  }
  return found;
}

/** The server's tools plus the spawn tools, which need the type registry. */
function toolsFor(sources: ActivationSources): Map<string, ToolImplementation> {
  const tools = new Map(sources.tools);
  for (const tool of spawnTools(sources.config.registry)) tools.set(tool.declaration.name, tool);
  return tools;
}

/** Loads an agent: its parts, its session and its recent history. */
export async function loadActivation(
  agentId: string,
  sources: ActivationSources,
): Promise<Activation> {
  const parts = await loadParts(agentId, sources);
  const state =
    (await sources.store.loadSession(agentId)) ?? newSessionState(sources.ids.next("session"));
  return {
    ...parts,
    state,
    controller: null,
    history: await loadHistory(sources.store, agentId),
    stale: false,
    handingOver: false,
    cancelling: false,
  };
}

/** Reloads an activation's parts after its record changed; its session and history stay. */
export async function reloadActivation(
  activation: Activation,
  sources: ActivationSources,
): Promise<void> {
  Object.assign(activation, await loadParts(activation.record.id, sources));
}

/** The activation's window of newest messages, read from the store. */
export async function loadHistory(store: Store, agentId: string): Promise<HistoryWindow> {
  return new HistoryWindow(
    await store.recentMessages(agentId, DEFAULT_HISTORY_LIMIT, null),
    DEFAULT_HISTORY_LIMIT,
  );
}
