import {
  committedAt,
  createdWith,
  editedAt,
  type MemoryChange,
  MemoryVersion,
} from "../../records/memory-history.js";
import type { CoreBlock, MemoryChanges } from "../../records/memory-records.js";
import { JournalEntry } from "../../records/run-journal.js";
import type { Tx } from "./pool.js";
import { bodies, passageOf, type Row } from "./rows.js";
import type { Queryable } from "./search.js";

/**
 * The PostgreSQL store's history rows, as SQLite keeps them: the run journal (for replay) and
 * memory changes placed among the agent's messages (for forks). Writes run inside a
 * transaction the store has opened; rows are appended, never updated.
 */
export async function appendJournal(
  tx: Tx,
  agentId: string,
  runId: string,
  entries: readonly JournalEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO run_journal (run_id, agent_id, body)
     SELECT $1, $2, e.body FROM unnest($3::jsonb[]) WITH ORDINALITY AS e (body, n) ORDER BY e.n`,
    [runId, agentId, entries.map((entry) => JSON.stringify(entry))],
  );
}

export async function runJournal(db: Queryable, runId: string): Promise<JournalEntry[]> {
  const { rows } = await db.query("SELECT body FROM run_journal WHERE run_id = $1 ORDER BY seq", [
    runId,
  ]);
  return bodies(rows, JournalEntry, "journal entry");
}

export async function memoryHistory(db: Queryable, agentId: string): Promise<MemoryVersion[]> {
  const { rows } = await db.query(
    "SELECT position, body FROM memory_history WHERE agent_id = $1 ORDER BY seq",
    [agentId],
  );
  const versions = rows.map((row: Row) => ({
    body: { position: Number(row.position), change: row.body },
  }));
  return bodies(versions, MemoryVersion, "memory change");
}

/** Records a step's memory changes, placed with the step's (already written) messages. */
export async function rememberCommitted(
  tx: Tx,
  agentId: string,
  memory: MemoryChanges,
): Promise<void> {
  const changes: MemoryChange[] = [
    ...memory.blocks.map((block) => ({ kind: "block" as const, block })),
    ...memory.passages.map((passage) => ({ kind: "passage" as const, id: passage.id })),
  ];
  if (changes.length === 0) return;
  await remember(tx, agentId, changes, committedAt(await messageCount(tx, agentId)));
}

/** Records changes made between commits (the API's edits). */
export async function rememberEdited(
  tx: Tx,
  agentId: string,
  changes: readonly MemoryChange[],
): Promise<void> {
  await remember(tx, agentId, changes, editedAt(await messageCount(tx, agentId)));
}

/** Records a new agent's blocks (`records/memory-history.ts`: `createdWith`). */
export async function rememberCreated(
  tx: Tx,
  agentId: string,
  blocks: readonly CoreBlock[],
  messages: number,
): Promise<void> {
  const { position, changes } = createdWith(blocks, messages);
  await remember(tx, agentId, changes, position);
}

/** The change a passage's deletion makes, or null if there is no such passage. */
export async function passageDeletion(
  tx: Tx,
  agentId: string,
  passageId: string,
): Promise<MemoryChange | null> {
  const { rows } = await tx.query(
    "SELECT id, text, tags, created_at_ms FROM passages WHERE agent_id = $1 AND id = $2",
    [agentId, passageId],
  );
  const row = rows[0];
  return row ? { kind: "passage_deleted", passage: passageOf(row) } : null;
}

async function remember(
  tx: Tx,
  agentId: string,
  changes: readonly MemoryChange[],
  position: number,
): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `INSERT INTO memory_history (agent_id, position, body)
     SELECT $1, $2, c.body FROM unnest($3::jsonb[]) WITH ORDINALITY AS c (body, n) ORDER BY c.n`,
    [agentId, position, changes.map((change) => JSON.stringify(change))],
  );
}

async function messageCount(tx: Tx, agentId: string): Promise<number> {
  const { rows } = await tx.query("SELECT count(*) AS n FROM messages WHERE agent_id = $1", [
    agentId,
  ]);
  return Number(rows[0]?.n ?? 0);
}
