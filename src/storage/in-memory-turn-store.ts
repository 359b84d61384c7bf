import type { RunRecord } from "../records/agent-record.js";
import type { CoreBlock, MessageHit, Passage } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import { rankBm25 } from "./bm25.js";
import type { StepCommit, TurnStore } from "./turn-store.js";

interface AgentRows {
  messages: AgentMessage[];
  blocks: Map<string, CoreBlock>;
  passages: Passage[];
  session: SessionState | null;
}

/** The text of a message that conversation search matches, and the role it shows. */
export function searchableText(
  message: AgentMessage,
): { role: MessageHit["role"]; text: string } | null {
  switch (message.message_type) {
    case "user_message":
      return { role: "user", text: message.content };
    case "assistant_message":
      return { role: "assistant", text: message.content };
    case "tool_call_message":
      return message.tool_call.name === "send_message"
        ? { role: "assistant", text: message.tool_call.arguments }
        : null;
    case "tool_return_message":
      return { role: "tool", text: message.tool_return };
    default:
      return null;
  }
}

/** A store in process memory: for tests, simulations and `--store memory`. */
export class InMemoryTurnStore implements TurnStore {
  readonly #agents = new Map<string, AgentRows>();
  readonly #runs = new Map<string, RunRecord>();

  async getRun(runId: string): Promise<RunRecord | null> {
    return structuredClone(this.#runs.get(runId) ?? null);
  }

  #rows(agentId: string): AgentRows {
    let rows = this.#agents.get(agentId);
    if (!rows) {
      rows = { messages: [], blocks: new Map(), passages: [], session: null };
      this.#agents.set(agentId, rows);
    }
    return rows;
  }

  /** Seeds an agent's blocks (agent creation belongs to the service layer). */
  putBlocks(agentId: string, blocks: readonly CoreBlock[]): void {
    for (const block of blocks) this.#rows(agentId).blocks.set(block.label, { ...block });
  }

  async loadBlocks(agentId: string): Promise<CoreBlock[]> {
    return [...this.#rows(agentId).blocks.values()].map((block) => ({ ...block }));
  }

  session(agentId: string): SessionState | null {
    return this.#rows(agentId).session;
  }

  allMessages(agentId: string): AgentMessage[] {
    return [...this.#rows(agentId).messages];
  }

  passages(agentId: string): Passage[] {
    return [...this.#rows(agentId).passages];
  }

  async recentMessages(agentId: string, limit: number): Promise<AgentMessage[]> {
    return limit <= 0 ? [] : this.#rows(agentId).messages.slice(-limit);
  }

  async searchMessages(
    agentId: string,
    query: string,
    options: { roles?: readonly string[]; limit: number },
  ) {
    const hits = this.#rows(agentId).messages.flatMap((message): MessageHit[] => {
      const found = searchableText(message);
      if (!found || (options.roles && !options.roles.includes(found.role))) return [];
      return [{ id: message.id, ...found, created_at_ms: Date.parse(message.date) }];
    });
    return rankBm25(
      query,
      hits.map((hit) => hit.text),
      options.limit,
    ).map((i) => hits[i] as MessageHit);
  }

  async searchPassages(
    agentId: string,
    query: string,
    options: { tags?: readonly string[]; topK: number },
  ) {
    const tags = options.tags;
    const pool = this.#rows(agentId).passages.filter(
      (passage) => !tags || tags.every((tag) => passage.tags.includes(tag)),
    );
    return rankBm25(
      query,
      pool.map((p) => p.text),
      options.topK,
    ).map((i) => pool[i] as Passage);
  }

  async commit(step: StepCommit): Promise<void> {
    const rows = this.#rows(step.agentId);
    rows.messages.push(...step.messages.map((message) => structuredClone(message)));
    for (const block of step.memory.blocks) rows.blocks.set(block.label, { ...block });
    rows.passages.push(...step.memory.passages);
    rows.session = structuredClone(step.state);
    if (step.run) this.#runs.set(step.run.id, structuredClone(step.run));
  }
}
