import { ChainRunner } from "../../src/chains/chain-runner.js";
import { builtinConfig } from "../../src/config/config-file.js";
import { type IdSource, sequentialIds } from "../../src/core/ids.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import { createSimModel, type SimModel } from "../../src/llm/sim/sim-model.js";
import { withArchives } from "../../src/memory/archive-search.js";
import { EmbeddedEngine } from "../../src/runtime/embedded-engine.js";
import type { Services } from "../../src/server/app.js";
import type { ServiceContext } from "../../src/service/agent-access.js";
import { AgentFolderService } from "../../src/service/agent-folder-service.js";
import { AgentMaintenanceService } from "../../src/service/agent-maintenance-service.js";
import { AgentService } from "../../src/service/agent-service.js";
import { ArchiveService } from "../../src/service/archive-service.js";
import { BlockService } from "../../src/service/block-service.js";
import { CatalogService } from "../../src/service/catalog-service.js";
import { ChainService } from "../../src/service/chain-service.js";
import { ConversationService } from "../../src/service/conversation-service.js";
import { FolderService } from "../../src/service/folder-service.js";
import { ForkService } from "../../src/service/fork-service.js";
import { MemoryService } from "../../src/service/memory-service.js";
import { MessageQueryService } from "../../src/service/message-query-service.js";
import { MessageService } from "../../src/service/message-service.js";
import { ReplayService } from "../../src/service/replay-service.js";
import { RunService } from "../../src/service/run-service.js";
import { ScheduleService } from "../../src/service/schedule-service.js";
import { ScheduledMessageLoop } from "../../src/service/scheduled-message-loop.js";
import { SessionService } from "../../src/service/session-service.js";
import { StepService } from "../../src/service/step-service.js";
import { ToolService } from "../../src/service/tool-service.js";
import { createInMemoryStore } from "../../src/storage/memory/in-memory-store.js";
import type { Store } from "../../src/storage/store.js";
import { folderToolImplementations } from "../../src/tools/files/index.js";
import { builtinToolImplementations } from "../../src/tools/registry.js";

/**
 * Every service over one store (in-memory unless given), the built-in types and tools, a
 * manual clock, sequential ids and a sim model: what service and route tests start from.
 */
export function serviceKit(
  options: { store?: Store; model?: SimModel; clock?: ManualClock; ids?: IdSource } = {},
) {
  // As the server wires it: an agent's archival search reaches its archives.
  const store = withArchives(options.store ?? createInMemoryStore());
  const config = builtinConfig();
  const clock = options.clock ?? new ManualClock();
  const ids = options.ids ?? sequentialIds();
  const model = options.model ?? createSimModel();
  const runtime = new EmbeddedEngine({
    store,
    config,
    ids,
    tools: new Map([
      ...builtinToolImplementations({ mode: "none" }),
      ...folderToolImplementations(store.folders).map(
        (tool) => [tool.declaration.name, tool] as const,
      ),
    ]),
    modelFor: () => model,
    defaultModel: "sim/demo",
    workspaceFor: (_record, isolation) => ({
      root: null,
      readOnly: isolation.read_only,
      network: isolation.network,
    }),
    clock,
  });
  const ctx: ServiceContext = {
    store,
    engine: runtime,
    config,
    ids,
    clock,
    defaultModel: "sim/demo",
    modelFor: () => model,
    checkModel: () => undefined,
  };
  const messages = new MessageService(ctx);
  // Not started: a test starts it to see scheduled messages fire on the manual clock.
  const scheduleLoop = new ScheduledMessageLoop(store, clock, (projectId, agentId, body) =>
    messages.sendAsync(projectId, agentId, body),
  );
  // MCP servers need a live catalogue; tests of them start a server (test/mcp-*.test.ts).
  const services: Required<Omit<Services, "mcpServers">> = {
    agents: new AgentService(ctx),
    messages,
    memory: new MemoryService(ctx),
    blocks: new BlockService(ctx),
    tools: new ToolService(ctx),
    sessions: new SessionService(ctx),
    runs: new RunService(ctx),
    replay: new ReplayService(ctx),
    forks: new ForkService(ctx),
    chains: new ChainService(ctx, new ChainRunner({ store, engine: runtime, config, ids, clock })),
    maintenance: new AgentMaintenanceService(ctx),
    catalog: new CatalogService(ctx),
    steps: new StepService(ctx),
    schedules: new ScheduleService(ctx, scheduleLoop),
    conversations: new ConversationService(ctx),
    messageQueries: new MessageQueryService(ctx),
    folders: new FolderService(ctx),
    agentFolders: new AgentFolderService(ctx),
    archives: new ArchiveService(ctx),
  };
  return { store, config, clock, ids, model, runtime, ctx, services, scheduleLoop };
}
