import { createServer } from "node:http";
import { createSimModel } from "../../llm/sim/sim-model.js";
import { DEFAULT_DURABILITY, type Durability } from "../../storage/durability.js";
import { benchServer } from "./bench-server.js";
import { clientHere, clientInChild, type TurnClient } from "./letta-turn-client.js";
import { percentile, timed } from "./measure.js";

/** One client's figures: its turns over HTTP, their overhead, and bare round trips. */
export interface HttpFigures {
  httpP50Ms: number;
  /** p50 of each HTTP turn minus the in-process turn sent just before it. */
  overheadP50Ms: number;
  bareRoundTripP50Ms: number;
}

/**
 * What the Letta API adds to a turn: one server (SQLite, full durability), one agent, turns sent
 * alternately in-process (`engine.send`) and over HTTP with Letta's official client, so both
 * see the same machine load and the same history. The client runs in a process of its own, as
 * a user's does (`ownProcess`), and then in the server's (`sameProcess`: its own work, mostly
 * the fetch implementation, then shares the server's core). The turn's shape is the bench's: a
 * message, one read tool call (`conversation_search`), then an answer.
 */
export async function httpTurns(turns: number, durability: Durability = DEFAULT_DURABILITY) {
  const model = createSimModel({
    remember: false,
    script: (request, call) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "found it" }
        : { toolCalls: [{ name: "conversation_search", args: { query: `k${call}` } }] },
  });
  const server = await benchServer(model, durability);
  const { assembled } = server;
  const bare = await bareServer();
  try {
    const agent = await assembled.services.agents.create("default", {
      name: "bench-http",
      agent_type: "letta_v1_agent",
    });
    const measure = async (client: TurnClient) => {
      const inProcess: number[] = [];
      const overHttp: number[] = [];
      // Warm both paths (module loading, the activation, the connection) before measuring.
      for (let i = 0; i < 5; i += 1) {
        await assembled.engine.send(agent.id, { content: `warm ${i}` });
        await client.turn(agent.id, i);
      }
      for (let i = 0; i < turns; i += 1) {
        inProcess.push(await timed(() => assembled.engine.send(agent.id, { content: `q ${i}` })));
        overHttp.push(await client.turn(agent.id, i));
      }
      for (let i = 0; i < 5; i += 1) await client.bare(bare.url, i);
      const bareTimes: number[] = [];
      for (let i = 0; i < turns; i += 1) bareTimes.push(await client.bare(bare.url, i));
      await client.close();
      const figures: HttpFigures = {
        httpP50Ms: p50(overHttp),
        overheadP50Ms: p50(overHttp.map((ms, i) => ms - (inProcess[i] ?? 0))),
        bareRoundTripP50Ms: p50(bareTimes),
      };
      return { figures, inProcess };
    };
    const own = await measure(await clientInChild(server.url));
    const same = await measure(await clientHere(server.url));
    return {
      turns,
      inProcessP50Ms: p50([...own.inProcess, ...same.inProcess]),
      ownProcess: own.figures,
      sameProcess: same.figures,
      durability,
    };
  } finally {
    await new Promise((closed) => bare.server.close(closed));
    await server.close();
  }
}

const p50 = (samples: readonly number[]) =>
  percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );

/** The floor under any HTTP overhead: a JSON POST answered by a bare `node:http` server. */
async function bareServer() {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      response.end('{"messages":[],"stop_reason":{"stop_reason":"end_turn"}}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/` };
}
