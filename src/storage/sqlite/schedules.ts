import type { DatabaseSync } from "node:sqlite";
import { NotFoundError } from "../../core/errors.js";
import { ScheduledMessageRecord } from "../../records/scheduled-message.js";
import type { ScheduleStore } from "../store.js";
import { decodeRow, parseInput } from "../store-rows.js";

const decode = (row: Record<string, unknown>) =>
  decodeRow(ScheduledMessageRecord, String(row.body), "scheduled message");

/**
 * Scheduled messages in SQLite: one row each, the record whole in `body`, with its next firing
 * time as a column for the timer loop. Each write is one statement, atomic on its own.
 */
export class SqliteSchedules implements ScheduleStore {
  constructor(private readonly db: DatabaseSync) {}

  async put(record: ScheduledMessageRecord): Promise<void> {
    const parsed = parseInput(ScheduledMessageRecord, record, ["schedule"]);
    const { changes } = this.db
      .prepare(
        `INSERT INTO scheduled_messages (id, agent_id, next_at_ms, body)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM agents WHERE id = ?2)
         ON CONFLICT (id) DO UPDATE SET next_at_ms = excluded.next_at_ms, body = excluded.body
         WHERE scheduled_messages.agent_id = excluded.agent_id`,
      )
      .run(parsed.id, parsed.agent_id, parsed.next_at_ms, JSON.stringify(parsed));
    if (Number(changes) === 0) throw new NotFoundError("agent", parsed.agent_id);
  }

  async get(id: string): Promise<ScheduledMessageRecord | null> {
    const row = this.db.prepare("SELECT body FROM scheduled_messages WHERE id = ?").get(id);
    return row ? decode(row) : null;
  }

  async list(agentId: string, page: { after?: string; limit: number }) {
    const rows = this.db
      .prepare(
        `SELECT body FROM scheduled_messages WHERE agent_id = ?1
           AND (?2 IS NULL OR seq > coalesce(
             (SELECT seq FROM scheduled_messages WHERE id = ?2 AND agent_id = ?1), 9e18))
         ORDER BY seq LIMIT ?3`,
      )
      .all(agentId, page.after ?? null, page.limit);
    return rows.map(decode);
  }

  async delete(id: string): Promise<boolean> {
    const result = this.db.prepare("DELETE FROM scheduled_messages WHERE id = ?").run(id);
    return Number(result.changes) > 0;
  }

  async due(nowMs: number): Promise<ScheduledMessageRecord[]> {
    const rows = this.db
      .prepare("SELECT body FROM scheduled_messages WHERE next_at_ms <= ? ORDER BY next_at_ms, seq")
      .all(nowMs);
    return rows.map(decode);
  }

  async next(): Promise<ScheduledMessageRecord | null> {
    const row = this.db
      .prepare("SELECT body FROM scheduled_messages ORDER BY next_at_ms, seq LIMIT 1")
      .get();
    return row ? decode(row) : null;
  }
}
