import { afterEach, describe, expect, it } from "vitest";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #16, decision 030: with durability `full` (the default), a turn's commits reach the
// WAL with synchronous=NORMAL and the WAL is synced once before the answer leaves, instead of
// once per commit; Letta's official client against the real server (SQLite).

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Each turn: a read tool call, then an answer (the bench's shape: four commits). */
const lookupThenAnswer = () =>
  createSimModel({
    script: (request, call) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "found it" }
        : { toolCalls: [{ name: "conversation_search", args: { query: `k${call}` } }] },
  });

/** WAL syncs the server's store has made so far (a SQLite store's counter). */
function walSyncs(): number {
  if (!server) throw new Error("no server");
  const store = server.engine.store as unknown as { flusher: { syncs: number } | null };
  return store.flusher?.syncs ?? 0;
}

describe("acknowledged means synced (issue #16, decision 030)", () => {
  it("syncs the WAL once per answered turn, before the answer, not once per commit", async () => {
    server = await startTestServer({ model: lookupThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    for (let i = 0; i < 3; i += 1) {
      const before = walSyncs();
      const answer = await client.agents.messages.create(agent.id, { input: `question ${i}` });
      expect(answer.messages.map((m) => m.message_type)).toContain("tool_return_message");
      expect(walSyncs() - before).toBe(1);
    }
    const before = walSyncs();
    await client.agents.retrieve(agent.id);
    expect(walSyncs()).toBe(before);
  });

  it("a streamed turn's frames go out after syncs shared among them", async () => {
    server = await startTestServer({ model: lookupThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const before = walSyncs();
    const stream = await client.agents.messages.stream(agent.id, { input: "stream it" });
    const types: string[] = [];
    for await (const chunk of stream) types.push(String(chunk.message_type));
    expect(types).toEqual(expect.arrayContaining(["tool_return_message", "stop_reason"]));
    const syncs = walSyncs() - before;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThanOrEqual(types.length);
  });
});
