import { Worker } from "node:worker_threads";
import { createSimModel } from "../../llm/sim/sim-model.js";
import type { Passage } from "../../records/memory-records.js";
import { benchServer } from "./bench-server.js";

/** How often the probe asks the server whether it is alive. */
const PROBE_EVERY_MS = 10;

/**
 * A probe in a thread of its own (so this thread's work does not delay it) that asks
 * `GET /v1/health/` every 10 ms and keeps the slowest answer since it was last asked.
 */
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
let worst = 0;
let running = true;
parentPort.on("message", (ask) => {
  if (ask === "stop") running = false;
  else { parentPort.postMessage(worst); worst = 0; }
});
(async () => {
  while (running) {
    const start = performance.now();
    await fetch(workerData.url + "/v1/health/").then((r) => r.text(), () => "");
    worst = Math.max(worst, performance.now() - start);
    await new Promise((next) => setTimeout(next, ${PROBE_EVERY_MS}));
  }
  process.exit(0);
})();`;

/** One heavy request, how long it took, and the slowest health answer while it ran. */
export interface Stall {
  what: string;
  ms: number;
  worstHealthMs: number;
}

/**
 * What one heavy request costs everybody else on one server: each request below runs while a
 * probe asks for `/v1/health/` every 10 ms, and its stall is the slowest answer the probe got
 * (the event loop's longest hold, plus a loopback round trip). The requests are those that
 * held the server for seconds before (issue #16's review): the context view of an agent with
 * many passages, `grep_files` over a large attached file, a client tool whose schema has a
 * catastrophic pattern (`^(a+)+$` against 32 `a`s and a `!`), and `/openapi.json`.
 */
export async function stalls(passages: number, fileMb: number): Promise<Stall[]> {
  const model = createSimModel({
    remember: false,
    script: (request) =>
      request.messages.at(-1)?.role === "tool" ||
      !request.tools.some((tool) => tool.name === "shell")
        ? { text: "done" }
        : { toolCalls: [{ name: "shell", args: { command: `${"a".repeat(32)}!` } }] },
  });
  const server = await benchServer(model);
  const probe = new Worker(PROBE, { eval: true, workerData: { url: server.url } });
  const worst = () =>
    new Promise<number>((answered) => {
      probe.once("message", answered);
      probe.postMessage("worst");
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const answer = await fetch(`${server.url}${path}`, init);
    if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
    return answer.json() as Promise<Record<string, unknown>>;
  };
  const found: Stall[] = [];
  // Each request runs once unmeasured first: its code's first load and compilation (Ajv's, for
  // one) is a once-per-process cost, not what every such request costs.
  const measure = async (what: string, request: () => Promise<unknown>) => {
    await request();
    await new Promise((settle) => setTimeout(settle, 5 * PROBE_EVERY_MS));
    await worst();
    const start = performance.now();
    await request();
    const ms = performance.now() - start;
    await new Promise((settle) => setTimeout(settle, 2 * PROBE_EVERY_MS));
    found.push({ what, ms, worstHealthMs: await worst() });
  };
  try {
    const agent = await call("POST", "/v1/agents/", { agent_type: "letta_v1_agent" });
    const agentId = String(agent.id);
    await fillPassages(server.assembled.store, agentId, passages);
    await measure(`context view, ${passages} passages`, () =>
      call("GET", `/v1/agents/${agentId}/context`),
    );

    const folder = await call("POST", "/v1/folders", { name: "stalls" });
    const form = new FormData();
    form.append("file", new Blob([largeText(fileMb)], { type: "text/plain" }), "large.txt");
    await call("POST", `/v1/folders/${folder.id}/upload`, form);
    await call("PATCH", `/v1/agents/${agentId}/folders/attach/${folder.id}`);
    await measure(`grep_files over ${fileMb} MB`, () =>
      call("POST", `/v1/agents/${agentId}/tools/grep_files/run`, { args: { pattern: "needle" } }),
    );

    const parameters = {
      type: "object",
      properties: { command: { type: "string", pattern: "^(a+)+$" } },
    };
    await measure("client tool pattern ^(a+)+$, 33 characters", () =>
      call("POST", `/v1/agents/${agentId}/messages`, {
        input: "run it",
        client_tools: [{ name: "shell", parameters }],
      }),
    );

    await measure("/openapi.json", () => call("GET", "/openapi.json"));
    return found;
  } finally {
    probe.postMessage("stop");
    await server.close();
  }
}

/** The agent's archival memory, written through the store (the API takes one at a time). */
async function fillPassages(
  store: { insertPassages(agentId: string, passages: readonly Passage[]): Promise<void> },
  agentId: string,
  count: number,
) {
  for (let start = 0; start < count; start += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - start) }, (_, k) => ({
      id: `passage-stall-${start + k}`,
      text: `note ${start + k} about the harbour lamp`,
      tags: [],
      created_at_ms: 1_700_000_000_000 + start + k,
    }));
    await store.insertPassages(agentId, batch);
  }
}

/** Lines of words, a `needle` every thousand lines, `mb` megabytes in all. */
function largeText(mb: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1_000_000; i++) {
    const line = `line ${i}: the keeper trims the wick at dusk${i % 1000 === 0 ? " needle" : ""}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}
