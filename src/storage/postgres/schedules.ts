import type pg from "pg";
import { NotFoundError } from "../../core/errors.js";
import { ScheduledMessageRecord } from "../../records/scheduled-message.js";
import type { ScheduleStore } from "../store.js";
import { parseInput } from "../store-rows.js";
import { bodies } from "./rows.js";

const WHAT = "scheduled message";

/**
 * Scheduled messages in PostgreSQL: one row each, the record whole in `body`, with its next
 * firing time as a column for the timer loop. Each write is one statement, atomic on its own.
 */
export class PostgresSchedules implements ScheduleStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(record: ScheduledMessageRecord): Promise<void> {
    const parsed = parseInput(ScheduledMessageRecord, record, ["schedule"]);
    const result = await this.pool.query(
      `INSERT INTO scheduled_messages (id, agent_id, next_at_ms, body)
       SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM agents WHERE id = $2)
       ON CONFLICT (id) DO UPDATE SET next_at_ms = excluded.next_at_ms, body = excluded.body
       WHERE scheduled_messages.agent_id = excluded.agent_id`,
      [parsed.id, parsed.agent_id, parsed.next_at_ms, JSON.stringify(parsed)],
    );
    if ((result.rowCount ?? 0) === 0) throw new NotFoundError("agent", parsed.agent_id);
  }

  async get(id: string): Promise<ScheduledMessageRecord | null> {
    const { rows } = await this.pool.query("SELECT body FROM scheduled_messages WHERE id = $1", [
      id,
    ]);
    return bodies(rows, ScheduledMessageRecord, WHAT)[0] ?? null;
  }

  async list(agentId: string, page: { after?: string; limit: number }) {
    const { rows } = await this.pool.query(
      `SELECT body FROM scheduled_messages WHERE agent_id = $1
         AND ($2::text IS NULL OR seq > coalesce(
           (SELECT seq FROM scheduled_messages WHERE id = $2 AND agent_id = $1),
           9223372036854775807))
       ORDER BY seq LIMIT $3`,
      [agentId, page.after ?? null, page.limit],
    );
    return bodies(rows, ScheduledMessageRecord, WHAT);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query("DELETE FROM scheduled_messages WHERE id = $1", [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async due(nowMs: number): Promise<ScheduledMessageRecord[]> {
    const { rows } = await this.pool.query(
      "SELECT body FROM scheduled_messages WHERE next_at_ms <= $1 ORDER BY next_at_ms, seq",
      [nowMs],
    );
    return bodies(rows, ScheduledMessageRecord, WHAT);
  }

  async next(): Promise<ScheduledMessageRecord | null> {
    const { rows } = await this.pool.query(
      "SELECT body FROM scheduled_messages ORDER BY next_at_ms, seq LIMIT 1",
    );
    return bodies(rows, ScheduledMessageRecord, WHAT)[0] ?? null;
  }
}
