// Measures GET /v1/agents/ (one page, and a search) over a project of N agents, against the
// built server (`npm run build` first). Usage: node scripts/measure-agent-list.mjs [AGENTS] [LIMIT] [RUNS_EACH]
// Seeds straight into the store; prints milliseconds, the median of 5 requests each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinConfig } from "../dist/config/config-file.js";
import { productionIds } from "../dist/core/ids.js";
import { newAgent } from "../dist/runtime/new-agent.js";
import { createApp } from "../dist/server/app.js";
import { assemble } from "../dist/server/assemble.js";
import { listen } from "../dist/server/serve.js";

const count = Number(process.argv[2] ?? 10_000);
const limit = Number(process.argv[3] ?? 50);
const runsEach = Number(process.argv[4] ?? 1);
const dataDir = mkdtempSync(join(tmpdir(), "holdfast-measure-"));
const config = builtinConfig();
const engine = await assemble({ config, dataDir, defaultModel: "sim/demo", env: {}, otelEnv: {} });
const type = config.registry.get("letta_v1_agent");
const seeded = performance.now();
for (let i = 0; i < count; i++) {
  const created = newAgent(
    { name: `agent-${i}`, projectId: "default", type },
    productionIds,
    Date.now() - count + i,
  );
  await engine.store.createAgent(created);
  for (let r = 0; r < runsEach; r++)
    await engine.store.putRun({
      id: productionIds.next("run"),
      agent_id: created.agent.id,
      status: "completed",
      stop_reason: "end_turn",
      idempotency_key: null,
      created_at_ms: Date.now(),
      completed_at_ms: Date.now(),
      usage: null,
      verification: null,
      models: [],
    });
}
console.log(
  `seeded ${count} agents with ${runsEach} runs each in ${Math.round(performance.now() - seeded)} ms`,
);
const app = createApp({
  config: engine.config,
  version: "measure",
  services: engine.services,
  tokens: null,
  metrics: engine.metrics,
});
const server = await listen(app, "127.0.0.1", 0);

async function median(path) {
  const times = [];
  let size = 0;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const response = await fetch(`${server.url}${path}`);
    size = (await response.json()).length;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return `${path}: ${size} agents, median ${times[2].toFixed(1)} ms`;
}

console.log(await median(`/v1/agents/?limit=${limit}`));
console.log(await median(`/v1/agents/?limit=${limit}&query_text=agent-99`));
await server.close();
await engine.close();
rmSync(dataDir, { recursive: true, force: true });
