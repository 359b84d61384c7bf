import { afterEach, beforeEach, describe } from "vitest";
import { agentCases } from "./contract/agent-cases.js";
import { archiveCases } from "./contract/archive-cases.js";
import { blockCases } from "./contract/block-cases.js";
import { chainRunCases } from "./contract/chain-run-cases.js";
import { conversationCases } from "./contract/conversation-cases.js";
import {
  agentRecord,
  block,
  type ContractContext,
  type StoreContractOptions,
  step,
  userMessage,
} from "./contract/fixtures.js";
import { folderCases, folderVectorCases } from "./contract/folder-cases.js";
import { historyCases } from "./contract/history-cases.js";
import { mcpServerCases } from "./contract/mcp-server-cases.js";
import { memoryQueryCases } from "./contract/memory-query-cases.js";
import { replayHistoryCases } from "./contract/replay-history-cases.js";
import { runCases } from "./contract/run-cases.js";
import { runListCases } from "./contract/run-list-cases.js";
import { scheduleCases } from "./contract/schedule-cases.js";
import { stateCases } from "./contract/state-cases.js";
import { stepCases } from "./contract/step-cases.js";
import { vectorCases } from "./contract/vector-cases.js";
import type { Store } from "./store.js";

export type { StoreContractOptions } from "./contract/fixtures.js";

/**
 * The tests every Store must pass, declared as `describe(name, …)`. `open` gives a new, empty
 * store for each test; with `options.reopen`, data is also checked to survive close and reopen.
 * The cases live in `contract/`, by area; this wires them to a store.
 *
 * @example
 * storeContract("in-memory store", async () => createInMemoryStore());
 * storeContract("SQLite store", () => openSqliteStore(":memory:"));
 */
export function storeContract(
  name: string,
  open: () => Promise<Store>,
  options: StoreContractOptions = {},
): void {
  describe(name, () => {
    let counter = 0;
    let agentsMade = 0;
    const t: ContractContext = {
      store: undefined as unknown as Store,
      fresh: (prefix) => `${prefix}-${++counter}`,
      async createAgent(id = t.fresh("agent"), projectId = "project-1") {
        // Block ids are unique in a store: the test's first agent gets the fixture's
        // `block-persona` and `block-human`, later ones ids of their own.
        const taken = agentsMade++ > 0;
        const own = (label: string) => ({ ...block(label), id: `block-${label}-${id}` });
        const blocks = taken ? [own("persona"), own("human")] : [block("persona"), block("human")];
        await t.store.createAgent({ agent: agentRecord(id, projectId), blocks });
        return id;
      },
      async say(agentId, ...texts) {
        const made: string[] = [];
        for (const text of texts) {
          const id = t.fresh("message");
          await t.store.commit(step(agentId, { messages: [userMessage(id, text)] }));
          made.push(id);
        }
        return made;
      },
    };

    beforeEach(async () => {
      agentsMade = 0;
      t.store = await open();
    });
    afterEach(async () => {
      await t.store.close();
    });

    agentCases(t);
    historyCases(t);
    stateCases(t, options);
    runCases(t);
    runListCases(t);
    chainRunCases(t, options);
    memoryQueryCases(t);
    mcpServerCases(t, options);
    folderCases(t, options);
    folderVectorCases(t);
    vectorCases(t, options);
    stepCases(t, options);
    replayHistoryCases(t);
    blockCases(t);
    scheduleCases(t, options);
    conversationCases(t, options);
    archiveCases(t);
  });
}
