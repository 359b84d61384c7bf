// A process the crash test kills with SIGKILL at random moments. It drives many agents on a
// SQLite file through the real runtime, printing "opened" once its store is open, "ack AGENT
// OTID" once a message's run is committed, and "done" when every message is acknowledged.
// Restarted, it resumes what was interrupted and sends every message again: the runtime must
// deduplicate them by otid.
import { builtinConfig } from "../../dist/config/config-file.js";
import { systemClock } from "../../dist/core/clock.js";
import { productionIds } from "../../dist/core/ids.js";
import { createSimModel } from "../../dist/llm/sim/sim-model.js";
import { EmbeddedEngine } from "../../dist/runtime/embedded-engine.js";
import { newAgent } from "../../dist/runtime/new-agent.js";
import { openSqliteStore } from "../../dist/storage/sqlite/sqlite-store.js";
import { builtinToolImplementations } from "../../dist/tools/registry.js";

const [dbPath, agentCount, messageCount] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
];
const out = (line) => process.stdout.write(`${line}\n`);

const store = await openSqliteStore(dbPath);
// The test times its kill from here, not from process start: loading modules on a busy
// machine can take longer than the whole kill window.
out("opened");
const config = builtinConfig();
const type = config.registry.get("memgpt_agent");
// Each message is stored in archival memory once, then acknowledged with send_message.
const model = createSimModel({
  script: (request) => {
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      return {
        toolCalls: [
          {
            name: "archival_memory_insert",
            args: { content: last.content, request_heartbeat: true },
          },
        ],
      };
    }
    return {
      toolCalls: [{ name: "send_message", args: { message: "stored", request_heartbeat: false } }],
    };
  },
});
const live = new Map();
const runtime = new EmbeddedEngine({
  store,
  config,
  ids: productionIds,
  tools: builtinToolImplementations({ mode: "none" }),
  modelFor: () => model,
  defaultModel: "sim/crash",
  workspaceFor: (_record, isolation) => ({
    root: null,
    readOnly: isolation.read_only,
    network: isolation.network,
  }),
  clock: systemClock,
  observe: {
    activated: (id) => {
      live.set(id, (live.get(id) ?? 0) + 1);
      if (live.get(id) > 1) out(`violation two-activations ${id}`);
    },
    deactivated: (id) => live.set(id, (live.get(id) ?? 1) - 1),
  },
});

const agentIds = [];
for (let i = 0; i < agentCount; i += 1) {
  const name = `crash-${i}`;
  const existing = (await store.listAgents("default", { limit: 1000, order: "asc" })).find(
    (a) => a.name === name,
  );
  if (existing) agentIds.push(existing.id);
  else {
    const created = newAgent({ name, type }, productionIds, Date.now());
    await store.createAgent(created);
    agentIds.push(created.agent.id);
  }
}
out(`interrupted ${(await store.interruptedSessions()).length}`);
await runtime.start();
// Start a little before the first message without a run, so that some sends are retries the
// runtime must answer from their first run, without a long replay of everything before.
const firstMissing = async (agentId, i) => {
  let k = 0;
  while (k < messageCount && (await store.findRunByKey(agentId, `otid-${i}-${k}`))) k += 1;
  return Math.max(0, k - 3);
};
await Promise.all(
  agentIds.map(async (agentId, i) => {
    for (let k = await firstMissing(agentId, i); k < messageCount; k += 1) {
      const otid = `otid-${i}-${k}`;
      await runtime.send(agentId, { content: `fact ${i}-${k}`, otid });
      out(`ack ${agentId} ${otid}`);
    }
  }),
);
await runtime.shutdown();
await store.close();
out("done");
