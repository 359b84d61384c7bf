import { wakeUpsOf } from "../../records/session-state.js";
import { searchableText } from "../searchable-text.js";
import type { StepCommit } from "../turn-store.js";
import { AGENT_MARK, ownedVectorTemplate } from "./full-text.js";

/**
 * A whole step as one statement: data-modifying CTEs for the messages, blocks, passages, the
 * checkpoint, its timers and the run. A single statement is atomic on its own, so the step
 * costs one round trip and one WAL flush, with no BEGIN or COMMIT (five round trips as a
 * transaction of separate statements; on a loaded machine each is a wait for the scheduler).
 *
 * Search terms are written as templates whose agent mark the statement replaces with the
 * agent's key, read in the same statement. For an agent that does not exist the key is NULL,
 * the terms fall back to empty, and the foreign keys reject the step (23503: not found).
 */
const KEY = `(SELECT 'a' || seq || 'x' FROM agents WHERE id = $1)`;
const terms = (template: string) => `replace(${template}, '${AGENT_MARK}', ${KEY})::tsvector`;

export const COMMIT_STEP = `WITH
  new_messages AS (
    INSERT INTO messages (id, agent_id, run_id, message_type, created_at, search_role,
      search_text, search_terms, body)
    SELECT m.id, $1, m.run_id, m.message_type, m.created_at, m.search_role, m.search_text,
      ${terms("m.search_terms")}, m.body
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::text[], $9::jsonb[]) WITH ORDINALITY
      AS m (id, run_id, message_type, created_at, search_role, search_text, search_terms, body, n)
    ORDER BY m.n
    RETURNING seq, run_id),
  new_blocks AS (
    UPDATE core_blocks SET body = b.body FROM unnest($10::text[], $11::jsonb[]) AS b (id, body)
    WHERE core_blocks.id = b.id),
  new_passages AS (
    INSERT INTO passages (id, agent_id, text, tags, created_at_ms, terms)
    SELECT p.id, $1, p.text, p.tags, p.created_at_ms, coalesce(${terms("p.terms")}, ''::tsvector)
    FROM unnest($12::text[], $13::text[], $14::jsonb[], $15::float8[], $16::text[])
      WITH ORDINALITY AS p (id, text, tags, created_at_ms, terms, n)
    ORDER BY p.n),
  session AS (
    INSERT INTO sessions (agent_id, version, phase, body) VALUES ($1, $17, $18, $19)
    ON CONFLICT (agent_id) DO UPDATE
    SET version = excluded.version, phase = excluded.phase, body = excluded.body),
  cleared AS (DELETE FROM timers WHERE agent_id = $1 AND kind = ANY ($20::text[])),
  set AS (
    INSERT INTO timers (agent_id, kind, due_at_ms)
    SELECT $1, w.kind, w.due FROM unnest($21::text[], $22::float8[]) AS w (kind, due)
    ON CONFLICT (agent_id, kind) DO UPDATE SET due_at_ms = excluded.due_at_ms),
  run AS (
    INSERT INTO runs (id, agent_id, idempotency_key, body, first_seq)
    SELECT $23, $1, $24, $25, coalesce(
      (SELECT min(seq) FROM new_messages WHERE run_id = $23),
      (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE agent_id = $1))
    WHERE $23::text IS NOT NULL
    ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id,
      idempotency_key = excluded.idempotency_key, body = excluded.body)
  SELECT 1`;

/** The parameters of `COMMIT_STEP` for a validated step. */
export function commitStepParams(step: StepCommit): unknown[] {
  const { agentId, state, messages, memory, run } = step;
  const found = messages.map(searchableText);
  // One update per block in a statement: the last write of a block wins, as it would in turn.
  // The blocks are the merged ones (`blocks.ts`: `mergeEdits`), read under a row lock.
  const blocks = [...new Map(memory.blocks.map((block) => [block.id, block])).values()];
  const wakeUps = Object.entries(wakeUpsOf(state));
  const set = wakeUps.filter((entry): entry is [string, number] => entry[1] !== null);
  return [
    agentId,
    messages.map((m) => m.id),
    messages.map((m) => m.run_id),
    messages.map((m) => m.message_type),
    messages.map((m) => m.date),
    found.map((f) => f?.role ?? null),
    found.map((f) => f?.text ?? null),
    found.map((f) => (f ? ownedVectorTemplate(f.text) : null)),
    messages.map((m) => JSON.stringify(m)),
    blocks.map((b) => b.id),
    blocks.map((b) => JSON.stringify(b)),
    memory.passages.map((p) => p.id),
    memory.passages.map((p) => p.text),
    memory.passages.map((p) => JSON.stringify(p.tags)),
    memory.passages.map((p) => p.created_at_ms),
    memory.passages.map((p) => ownedVectorTemplate(p.text)),
    state.version,
    state.phase,
    JSON.stringify(state),
    wakeUps.filter(([, due]) => due === null).map(([kind]) => kind),
    set.map(([kind]) => kind),
    set.map(([, due]) => due),
    run?.id ?? null,
    run?.idempotency_key ?? null,
    run ? JSON.stringify(run) : null,
  ];
}
