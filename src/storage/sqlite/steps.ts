import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ConflictError } from "../../core/errors.js";
import {
  applyStepUpdate,
  type StepFeedback,
  StepRecord,
  type StepUpdate,
} from "../../records/step-record.js";
import type { PageQuery, StepFilter } from "../store.js";
import { bodies, body, pageBounds, seqFrom } from "./rows.js";

/**
 * Step records in SQLite: one row each, the record whole in `body`, with the columns lists
 * filter on. Writes run inside the store's step commit (group commit), never on their own.
 */
export class SqliteSteps {
  readonly #put: StatementSync;
  readonly #get: StatementSync;
  readonly #seq: StatementSync;
  readonly #asc: StatementSync;
  readonly #feedback: StatementSync;
  readonly #desc: StatementSync;

  constructor(db: DatabaseSync) {
    // An upsert keeps the row's `seq` (its place in lists); a step of another agent is not taken.
    this.#put = db.prepare(
      `INSERT INTO steps (id, agent_id, run_id, model, created_at_ms, body)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, model = excluded.model,
         created_at_ms = excluded.created_at_ms, body = excluded.body
       WHERE steps.agent_id = excluded.agent_id`,
    );
    this.#get = db.prepare("SELECT body FROM steps WHERE id = ?");
    this.#feedback = db.prepare(
      `UPDATE steps SET body = json_set(body, '$.feedback', ?2,
         '$.tags', CASE WHEN ?3 IS NULL THEN json_extract(body, '$.tags') ELSE json(?3) END)
       WHERE id = ?1 RETURNING body`,
    );
    this.#seq = db.prepare(
      `SELECT s.seq FROM steps AS s JOIN agents AS a ON a.id = s.agent_id
       WHERE s.id = ?1 AND a.project_id = ?2 AND (?3 IS NULL OR s.agent_id = ?3)
         AND (?4 IS NULL OR s.run_id = ?4)`,
    );
    const list = (order: "ASC" | "DESC") =>
      db.prepare(
        `SELECT s.body FROM steps AS s JOIN agents AS a ON a.id = s.agent_id
         WHERE a.project_id = ?1 AND (?2 IS NULL OR s.agent_id = ?2)
           AND (?3 IS NULL OR s.run_id = ?3)
           AND (?4 IS NULL OR s.model = ?4 OR substr(s.model, instr(s.model, '/') + 1) = ?4)
           AND (?5 IS NULL OR s.created_at_ms >= ?5) AND (?6 IS NULL OR s.created_at_ms < ?6)
           AND s.seq > ?7 AND s.seq < ?8
         ORDER BY s.seq ${order} LIMIT ?9`,
      );
    this.#asc = list("ASC");
    this.#desc = list("DESC");
  }

  /** Writes checked records; call inside a transaction. */
  write(steps: readonly StepRecord[]): void {
    for (const step of steps) {
      const json = JSON.stringify(step);
      const { changes } = this.#put.run(
        step.id,
        step.agent_id,
        step.run_id,
        step.model,
        step.created_at_ms,
        json,
      );
      if (Number(changes) === 0) throw new ConflictError(`step '${step.id}' is another agent's`);
    }
  }

  /** Applies checked updates to the agent's stored records; call inside a transaction. */
  update(agentId: string, updates: readonly StepUpdate[]): void {
    for (const update of updates) {
      const stored = this.get(update.id);
      if (stored?.agent_id === agentId) this.write([applyStepUpdate(stored, update)]);
    }
  }

  /** One statement: atomic without the store's transactions. */
  setFeedback(id: string, feedback: StepFeedback, tags: readonly string[] | null) {
    const row = this.#feedback.get(id, feedback, tags === null ? null : JSON.stringify(tags));
    return body(row, StepRecord, "step");
  }

  get(id: string): StepRecord | null {
    return body(this.#get.get(id), StepRecord, "step");
  }

  list(filter: StepFilter, page: PageQuery): StepRecord[] {
    const agent = filter.agentId ?? null;
    const run = filter.runId ?? null;
    const bounds = pageBounds(page, (id) => seqFrom(this.#seq, id, filter.projectId, agent, run));
    if (!bounds) return [];
    const statement = page.order === "asc" ? this.#asc : this.#desc;
    const rows = statement.all(
      filter.projectId,
      agent,
      run,
      filter.model ?? null,
      filter.fromMs ?? null,
      filter.toMs ?? null,
      bounds.lower,
      bounds.upper,
      bounds.limit,
    );
    return bodies(rows, StepRecord, "step");
  }
}
