import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinConfig } from "../../config/config-file.js";
import { createSimModel } from "../../llm/sim/sim-model.js";
import { createApp } from "../../server/app.js";
import { assemble } from "../../server/assemble.js";
import { listen } from "../../server/serve.js";
import { DEFAULT_DURABILITY, type Durability } from "../../storage/durability.js";
import { percentile, timed } from "./measure.js";

/**
 * What the Letta API adds to a turn: one server (SQLite, full durability), one agent, turns sent
 * alternately in-process (`engine.send`) and over HTTP with Letta's official client, so both
 * see the same machine load and the same history. The turn's shape is the bench's: a message,
 * one read tool call (`conversation_search`), then an answer.
 */
export async function httpTurns(turns: number, durability: Durability = DEFAULT_DURABILITY) {
  // A dev dependency: the bench runs from a checkout, never from the published package.
  const { default: Letta } = await import("@letta-ai/letta-client");
  const dataDir = mkdtempSync(join(tmpdir(), "holdfast-bench-http-"));
  const model = createSimModel({
    script: (request, call) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "found it" }
        : { toolCalls: [{ name: "conversation_search", args: { query: `k${call}` } }] },
  });
  const assembled = await assemble({
    config: builtinConfig(),
    dataDir,
    durability,
    defaultModel: "sim/bench",
    env: {},
    modelFor: () => model,
    otelEnv: {},
  });
  const app = createApp({
    config: assembled.config,
    version: "bench",
    services: assembled.services,
    flush: () => assembled.store.flush?.() ?? Promise.resolve(),
    tokens: null,
    metrics: assembled.metrics,
  });
  const server = await listen(app, "127.0.0.1", 0);
  try {
    const client = new Letta({ baseURL: server.url, maxRetries: 0 });
    const agent = await client.agents.create({ name: "bench-http", agent_type: "letta_v1_agent" });
    const inProcess: number[] = [];
    const overHttp: number[] = [];
    const send = (i: number) =>
      client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: `question ${i}` }],
      });
    // Warm both paths (module loading, the activation, the connection) before measuring.
    for (let i = 0; i < 5; i += 1) {
      await assembled.engine.send(agent.id, { content: `warm ${i}` });
      await send(i);
    }
    for (let i = 0; i < turns; i += 1) {
      inProcess.push(await timed(() => assembled.engine.send(agent.id, { content: `q ${i}` })));
      overHttp.push(await timed(() => send(i)));
    }
    const bare = await bareRoundTrips(turns);
    const p50 = (samples: number[]) =>
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      );
    return {
      turns,
      inProcessP50Ms: p50(inProcess),
      httpP50Ms: p50(overHttp),
      overheadP50Ms: p50(overHttp.map((ms, i) => ms - (inProcess[i] ?? 0))),
      bareRoundTripP50Ms: p50(bare),
      durability,
    };
  } finally {
    await server.close();
    await assembled.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The floor under any HTTP overhead: a JSON POST answered by a bare `node:http` server,
 * fetched the way Letta's client fetches, on the same machine and event loop.
 */
async function bareRoundTrips(count: number): Promise<number[]> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      response.end('{"messages":[],"stop_reason":{"stop_reason":"end_turn"}}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as { port: number };
  const post = async (i: number) => {
    const body = JSON.stringify({ messages: [{ role: "user", content: `question ${i}` }] });
    const headers = { "content-type": "application/json" };
    const answer = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers, body });
    await answer.json();
  };
  try {
    for (let i = 0; i < 5; i += 1) await post(i);
    const times: number[] = [];
    for (let i = 0; i < count; i += 1) times.push(await timed(() => post(i)));
    return times;
  } finally {
    await new Promise((closed) => server.close(closed));
  }
}
