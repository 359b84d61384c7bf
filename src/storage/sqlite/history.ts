import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  committedAt,
  createdWith,
  editedAt,
  type MemoryChange,
  MemoryVersion,
} from "../../records/memory-history.js";
import type { CoreBlock, MemoryChanges } from "../../records/memory-records.js";
import { JournalEntry } from "../../records/run-journal.js";
import { decodeRow } from "../store-rows.js";
import { passageOf, text } from "./rows.js";

/**
 * The SQLite store's history rows: the run journal (for replay) and memory changes (for
 * forks). It only writes inside a transaction the store has opened; each write is a row per
 * entry, appended, never updated.
 */
export class SqliteHistory {
  private readonly sql: Record<
    "journal" | "runJournal" | "remember" | "memory" | "count" | "passage",
    StatementSync
  >;

  constructor(db: DatabaseSync) {
    this.sql = {
      journal: db.prepare("INSERT INTO run_journal (run_id, agent_id, body) VALUES (?, ?, ?)"),
      runJournal: db.prepare("SELECT body FROM run_journal WHERE run_id = ? ORDER BY seq"),
      remember: db.prepare(
        "INSERT INTO memory_history (agent_id, position, body) VALUES (?, ?, ?)",
      ),
      memory: db.prepare(
        "SELECT position, body FROM memory_history WHERE agent_id = ? ORDER BY seq",
      ),
      count: db.prepare("SELECT count(*) AS n FROM messages WHERE agent_id = ?"),
      passage: db.prepare(
        "SELECT id, text, tags, created_at_ms FROM passages WHERE agent_id = ? AND id = ?",
      ),
    };
  }

  appendJournal(agentId: string, runId: string, entries: readonly JournalEntry[]): void {
    for (const entry of entries) this.sql.journal.run(runId, agentId, JSON.stringify(entry));
  }

  runJournal(runId: string): JournalEntry[] {
    return this.sql.runJournal
      .all(runId)
      .map((row) => decodeRow(JournalEntry, text(row, "body"), "journal entry"));
  }

  /** Records a step's memory changes, placed with the step's (already written) messages. */
  committed(agentId: string, memory: MemoryChanges): void {
    if (memory.blocks.length === 0 && memory.passages.length === 0) return;
    const changes: MemoryChange[] = [
      ...memory.blocks.map((block) => ({ kind: "block" as const, block })),
      ...memory.passages.map((passage) => ({ kind: "passage" as const, id: passage.id })),
    ];
    this.remember(agentId, changes, committedAt(this.messages(agentId)));
  }

  /** Records changes made between commits (the API's edits). */
  edited(agentId: string, changes: readonly MemoryChange[]): void {
    this.remember(agentId, changes, editedAt(this.messages(agentId)));
  }

  /** Records a new agent's blocks (`records/memory-history.ts`: `createdWith`). */
  created(agentId: string, blocks: readonly CoreBlock[], messages: number): void {
    const { position, changes } = createdWith(blocks, messages);
    this.remember(agentId, changes, position);
  }

  /** The change a passage's deletion makes, or null if there is no such passage. */
  passageDeletion(agentId: string, passageId: string): MemoryChange | null {
    const row = this.sql.passage.get(agentId, passageId);
    return row ? { kind: "passage_deleted", passage: passageOf(row) } : null;
  }

  memoryHistory(agentId: string): MemoryVersion[] {
    return this.sql.memory.all(agentId).map((row) => {
      const change = decodeRow(MemoryVersion.shape.change, text(row, "body"), "memory change");
      return { position: Number(row.position), change };
    });
  }

  private remember(agentId: string, changes: readonly MemoryChange[], position: number): void {
    for (const change of changes) this.sql.remember.run(agentId, position, JSON.stringify(change));
  }

  private messages(agentId: string): number {
    return Number(this.sql.count.get(agentId)?.n ?? 0);
  }
}
