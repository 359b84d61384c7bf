import {
  committedAt,
  createdWith,
  editedAt,
  type MemoryChange,
  type MemoryVersion,
} from "../../records/memory-history.js";
import type { CoreBlock, MemoryChanges } from "../../records/memory-records.js";
import type { JournalEntry } from "../../records/run-journal.js";
import { copy } from "./rows.js";

/** The in-memory store's history: run journals and memory changes, as SQLite keeps them. */
export class InMemoryHistory {
  private readonly journals = new Map<string, { agentId: string; entries: JournalEntry[] }>();
  private readonly memory = new Map<string, MemoryVersion[]>();

  appendJournal(agentId: string, runId: string, entries: readonly JournalEntry[]): void {
    const journal = this.journals.get(runId) ?? { agentId, entries: [] };
    journal.entries.push(...copy(entries));
    this.journals.set(runId, journal);
  }

  runJournal(runId: string): JournalEntry[] {
    return copy(this.journals.get(runId)?.entries ?? []);
  }

  /** A step's memory changes, placed with its messages (`messages`: the agent's count after). */
  committed(agentId: string, memory: MemoryChanges, messages: number): void {
    const changes: MemoryChange[] = [
      ...memory.blocks.map((block) => ({ kind: "block" as const, block })),
      ...memory.passages.map((passage) => ({ kind: "passage" as const, id: passage.id })),
    ];
    this.remember(agentId, changes, committedAt(messages));
  }

  /** Changes made between commits, when the agent has `messages` messages. */
  edited(agentId: string, changes: readonly MemoryChange[], messages: number): void {
    this.remember(agentId, changes, editedAt(messages));
  }

  /** A new agent's blocks (`records/memory-history.ts`: `createdWith`). */
  created(agentId: string, blocks: readonly CoreBlock[], messages: number): void {
    const { position, changes } = createdWith(blocks, messages);
    this.remember(agentId, changes, position);
  }

  memoryHistory(agentId: string): MemoryVersion[] {
    return copy(this.memory.get(agentId) ?? []);
  }

  forget(agentId: string): void {
    this.memory.delete(agentId);
    for (const [runId, journal] of this.journals) {
      if (journal.agentId === agentId) this.journals.delete(runId);
    }
  }

  private remember(agentId: string, changes: readonly MemoryChange[], position: number): void {
    if (changes.length === 0) return;
    const versions = this.memory.get(agentId) ?? [];
    versions.push(...changes.map((change) => ({ position, change: copy(change) })));
    this.memory.set(agentId, versions);
  }
}
