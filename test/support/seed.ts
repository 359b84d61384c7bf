import type { HoldfastConfig } from "../../src/config/config-file.js";
import { productionIds } from "../../src/core/ids.js";
import type { AgentMessage } from "../../src/records/messages.js";
import { newSessionState } from "../../src/records/session-state.js";
import { newAgent } from "../../src/runtime/new-agent.js";
import type { Store } from "../../src/storage/store.js";

/**
 * Test-only seeding straight into a server's store: thousands of agents or messages in
 * seconds, where the API would need one request (and for messages, one model turn) each.
 */
export async function seedAgents(
  store: Store,
  config: HoldfastConfig,
  options: { projectId: string; count: number; prefix: string },
): Promise<void> {
  const type = config.registry.get("letta_v1_agent");
  if (!type) throw new Error("no letta_v1_agent type");
  const start = Date.now() - options.count;
  const width = String(options.count - 1).length;
  for (let i = 0; i < options.count; i++) {
    const name = `${options.prefix}-${String(i).padStart(width, "0")}`;
    await store.createAgent(
      newAgent({ name, projectId: options.projectId, type }, productionIds, start + i),
    );
  }
}

/** Appends `count` messages to an agent's history (user and assistant by turns), in batches. */
export async function seedHistory(store: Store, agentId: string, count: number): Promise<void> {
  const base = Date.now() - count * 1000;
  for (let from = 0; from < count; from += 500) {
    const messages: AgentMessage[] = [];
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const common = {
        id: productionIds.next("message"),
        date: new Date(base + i * 1000).toISOString(),
        run_id: null,
        step_id: null,
        otid: null,
      };
      messages.push(
        i % 2 === 0
          ? { ...common, message_type: "user_message", content: `question ${i}` }
          : { ...common, message_type: "assistant_message", content: `answer ${i}` },
      );
    }
    await store.commit({
      agentId,
      state: newSessionState(productionIds.next("session")),
      messages,
      memory: { blocks: [], passages: [] },
    });
  }
}
