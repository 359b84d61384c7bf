import { ConflictError } from "../../core/errors.js";
import {
  applyStepUpdate,
  type StepFeedback,
  StepRecord,
  type StepUpdate,
} from "../../records/step-record.js";
import type { PageQuery, StepFilter } from "../store.js";
import { pageBounds } from "./paging.js";
import type { Tx } from "./pool.js";
import { bodies, body, seqOf } from "./rows.js";
import type { Queryable } from "./search.js";

// An upsert keeps the row's `seq` (its place in lists); a step of another agent is not taken.
const PUT = `INSERT INTO steps (id, agent_id, run_id, model, created_at_ms, body)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, model = excluded.model,
    created_at_ms = excluded.created_at_ms, body = excluded.body
  WHERE steps.agent_id = excluded.agent_id`;

const SEQ = `SELECT s.seq FROM steps AS s JOIN agents AS a ON a.id = s.agent_id
  WHERE s.id = $1 AND a.project_id = $2 AND ($3::text IS NULL OR s.agent_id = $3)
    AND ($4::text IS NULL OR s.run_id = $4)`;

const list = (order: "ASC" | "DESC") => `SELECT s.body FROM steps AS s
  JOIN agents AS a ON a.id = s.agent_id
  WHERE a.project_id = $1 AND ($2::text IS NULL OR s.agent_id = $2)
    AND ($3::text IS NULL OR s.run_id = $3)
    AND ($4::text IS NULL OR s.model = $4 OR substr(s.model, strpos(s.model, '/') + 1) = $4)
    AND ($5::float8 IS NULL OR s.created_at_ms >= $5)
    AND ($6::float8 IS NULL OR s.created_at_ms < $6)
    AND s.seq > $7 AND s.seq < $8
  ORDER BY s.seq ${order} LIMIT $9`;

/** Step records in PostgreSQL, written inside the step's transaction, as SQLite keeps them. */
export async function writeSteps(tx: Tx, steps: readonly StepRecord[]): Promise<void> {
  for (const step of steps) {
    const params = [step.id, step.agent_id, step.run_id, step.model, step.created_at_ms];
    const { rowCount } = await tx.query(PUT, [...params, JSON.stringify(step)]);
    if (!rowCount) throw new ConflictError(`step '${step.id}' is another agent's`);
  }
}

/** Applies checked updates to the agent's stored records, inside the step's transaction. */
export async function updateSteps(
  tx: Tx,
  agentId: string,
  updates: readonly StepUpdate[],
): Promise<void> {
  for (const update of updates) {
    const stored = await readStep(tx, update.id);
    if (stored?.agent_id === agentId) await writeSteps(tx, [applyStepUpdate(stored, update)]);
  }
}

export async function readStep(db: Queryable, id: string): Promise<StepRecord | null> {
  const { rows } = await db.query("SELECT body FROM steps WHERE id = $1", [id]);
  return body(rows[0], StepRecord, "step");
}

/** Sets a step's feedback (and tags, when given) in one statement; the updated record. */
export async function setStepFeedback(
  db: Queryable,
  id: string,
  feedback: StepFeedback,
  tags: readonly string[] | null,
): Promise<StepRecord | null> {
  const { rows } = await db.query(
    `UPDATE steps SET body = jsonb_set(
       body || CASE WHEN $3::jsonb IS NULL THEN '{}'::jsonb
                    ELSE jsonb_build_object('tags', $3::jsonb) END,
       '{feedback}', coalesce(to_jsonb($2::text), 'null'::jsonb))
     WHERE id = $1 RETURNING body`,
    [id, feedback, tags === null ? null : JSON.stringify(tags)],
  );
  return body(rows[0], StepRecord, "step");
}

export async function listSteps(
  db: Queryable,
  filter: StepFilter,
  page: PageQuery,
): Promise<StepRecord[]> {
  const agent = filter.agentId ?? null;
  const run = filter.runId ?? null;
  const seq = async (id: string) =>
    seqOf((await db.query(SEQ, [id, filter.projectId, agent, run])).rows[0]);
  const bounds = await pageBounds(page, seq);
  if (!bounds) return [];
  const { rows } = await db.query(list(page.order === "asc" ? "ASC" : "DESC"), [
    filter.projectId,
    agent,
    run,
    filter.model ?? null,
    filter.fromMs ?? null,
    filter.toMs ?? null,
    bounds.lower,
    bounds.upper,
    bounds.limit,
  ]);
  return bodies(rows, StepRecord, "step");
}
