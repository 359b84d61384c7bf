import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { builtinConfig } from "../src/config/config-file.js";
import { type Assembled, assemble } from "../src/server/assemble.js";

const PROJECT = "default";
let assembled: Assembled | undefined;
let dataDir = "";
afterEach(async () => {
  await assembled?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("messages sent to one agent at once", () => {
  it("reach the engine in the order they arrived, though their checks finish out of order", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "holdfast-arrival-"));
    assembled = await assemble({ config: builtinConfig(), dataDir, defaultModel: "sim/demo" });
    const { services, store } = assembled;
    const agent = await services.agents.create(PROJECT, { agent_type: "letta_v1_agent" });
    // As on PostgreSQL, where reads share a pool: each message's read of its agent comes back
    // later than the next one's, so the first to arrive is the last to be checked.
    const getAgent = store.getAgent.bind(store);
    let reads = 0;
    store.getAgent = async (id) => {
      const found = await getAgent(id);
      const wait = 40 - 10 * reads++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      return found;
    };
    const texts = ["one", "two", "three", "four"];
    await Promise.all(
      texts.map((content) =>
        services.messages.send(PROJECT, agent.id, { messages: [{ role: "user", content }] }),
      ),
    );
    store.getAgent = getAgent;
    const history = await store.listMessages(agent.id, { limit: 100, order: "asc" });
    const sent = history.flatMap((m) => (m.message_type === "user_message" ? [m.content] : []));
    expect(sent).toEqual(texts);
  });
});
