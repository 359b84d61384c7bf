import { NotFoundError } from "../../core/errors.js";
import { ScheduledMessageRecord } from "../../records/scheduled-message.js";
import type { ScheduleStore } from "../store.js";
import { parseInput } from "../store-rows.js";

/** Scheduled messages in memory, in the order they were added (a Map keeps a key's place). */
export class InMemorySchedules implements ScheduleStore {
  readonly #records = new Map<string, ScheduledMessageRecord>();

  /** `hasAgent` tells whether an agent is stored (a schedule needs its agent). */
  constructor(private readonly hasAgent: (agentId: string) => boolean) {}

  async put(record: ScheduledMessageRecord): Promise<void> {
    const parsed = structuredClone(parseInput(ScheduledMessageRecord, record, ["schedule"]));
    if (!this.hasAgent(parsed.agent_id)) throw new NotFoundError("agent", parsed.agent_id);
    this.#records.set(parsed.id, parsed);
  }

  async get(id: string): Promise<ScheduledMessageRecord | null> {
    const record = this.#records.get(id);
    return record ? structuredClone(record) : null;
  }

  async list(agentId: string, page: { after?: string; limit: number }) {
    const mine = [...this.#records.values()].filter((r) => r.agent_id === agentId);
    const from = page.after ? mine.findIndex((r) => r.id === page.after) + 1 : 0;
    if (page.after && from === 0) return [];
    return mine.slice(from, from + page.limit).map((r) => structuredClone(r));
  }

  async delete(id: string): Promise<boolean> {
    return this.#records.delete(id);
  }

  async due(nowMs: number): Promise<ScheduledMessageRecord[]> {
    return this.#soonestFirst().filter((r) => r.next_at_ms <= nowMs);
  }

  async next(): Promise<ScheduledMessageRecord | null> {
    return this.#soonestFirst()[0] ?? null;
  }

  deleteAgent(agentId: string): void {
    for (const [id, r] of this.#records) if (r.agent_id === agentId) this.#records.delete(id);
  }

  #soonestFirst(): ScheduledMessageRecord[] {
    return [...this.#records.values()]
      .sort((a, b) => a.next_at_ms - b.next_at_ms)
      .map((r) => structuredClone(r));
  }
}
