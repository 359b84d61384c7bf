import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEARN_PROMPT } from "../src/agent/session-end.js";
import { checkConfig } from "../src/config/config-file.js";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

/** One type per memory depth, as a config file would write them. */
function depthsConfig() {
  const memory = (depth: string) => ({ extends: "letta_v1_agent", memory: { depth } });
  const checked = checkConfig({
    types: {
      d_stateless: memory("stateless"),
      d_session: memory("session"),
      d_persistent: memory("persistent"),
      d_learning: memory("learning"),
    },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

const LESSON = "The user is called Ada and drinks green tea every morning.";
const model = createSimModel({
  script: (request) => (request.system === LEARN_PROMPT ? { text: LESSON } : { text: "ok" }),
});

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
beforeAll(async () => {
  server = await startTestServer({ model, config: depthsConfig() });
});
afterAll(async () => server.close());

/** Everything the model was shown for the agent's last turn, as one string. */
function lastSeen(agentId: string): string {
  const mine = model.requests.filter((r) => r.caller === agentId && r.system !== LEARN_PROMPT);
  const last = mine.at(-1) as ModelRequest;
  return JSON.stringify(last.messages);
}

async function say(agentId: string, content: string) {
  await server.client().agents.messages.create(agentId, { messages: [{ role: "user", content }] });
}

async function endSession(agentId: string) {
  const response = await fetch(`${server.url}/v1/agents/${agentId}/sessions/current/end`, {
    method: "POST",
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { session_id: string; learning: unknown };
}

describe("memory depths through Letta's client (issue 13)", () => {
  it("stateless: the model sees nothing from earlier turns", async () => {
    const agent = await server.client().agents.create({ agent_type: "d_stateless" } as never);
    await say(agent.id, "my locker code is 4417");
    await say(agent.id, "what is my locker code");
    expect(lastSeen(agent.id)).toContain("what is my locker code");
    expect(lastSeen(agent.id)).not.toContain("4417");
  });

  it("session: the current session's history only; an ended session leaves the context", async () => {
    const agent = await server.client().agents.create({ agent_type: "d_session" } as never);
    await say(agent.id, "my locker code is 4417");
    await say(agent.id, "what is my locker code");
    expect(lastSeen(agent.id)).toContain("4417");
    const next = await endSession(agent.id);
    await say(agent.id, "and now, what is my locker code");
    expect(lastSeen(agent.id)).not.toContain("4417");
    // Nothing was deleted: the history is all still stored, and the new session is current.
    const stored = await server.client().agents.messages.list(agent.id, { limit: 100 });
    expect(JSON.stringify(stored)).toContain("4417");
    const current = await fetch(`${server.url}/v1/agents/${agent.id}/sessions/current`);
    expect(((await current.json()) as { session_id: string }).session_id).toBe(next.session_id);
  });

  it("persistent: earlier sessions stay in context", async () => {
    const agent = await server.client().agents.create({ agent_type: "d_persistent" } as never);
    await say(agent.id, "my locker code is 4417");
    await endSession(agent.id);
    await say(agent.id, "what is my locker code");
    expect(lastSeen(agent.id)).toContain("4417");
  });

  it("learning: a session's end writes a lesson to archival memory, recalled in later turns", async () => {
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "d_learning" } as never);
    await say(agent.id, "hello, I am Ada and I start the day with green tea");
    const next = await endSession(agent.id);
    expect(next.learning).toBeNull();
    const asked = model.requests.filter((r) => r.caller === agent.id && r.system === LEARN_PROMPT);
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0]?.messages)).toContain("green tea");
    const passages = await client.agents.passages.list(agent.id);
    const learned = passages.filter((p) => p.text === LESSON);
    expect(learned).toHaveLength(1);
    expect(learned[0]?.tags).toContain("learned");

    // Ending the new, empty session writes no lesson: nothing was said in it.
    await endSession(agent.id);
    await say(agent.id, "which tea should I buy?");
    const seen = lastSeen(agent.id);
    expect(seen).toContain("Recalled from your memory");
    expect(seen).toContain(LESSON);
    expect(
      model.requests.filter((r) => r.caller === agent.id && r.system === LEARN_PROMPT),
    ).toHaveLength(1);
  });

  it("refuses to end a session that is not the agent's with a 404", async () => {
    const agent = await server.client().agents.create({ agent_type: "d_session" } as never);
    const response = await fetch(`${server.url}/v1/agents/${agent.id}/sessions/nope/end`, {
      method: "POST",
    });
    expect(response.status).toBe(404);
  });
});
