import type { CoreBlock, MessageHit, Passage } from "../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "../storage/turn-store.js";

export type { MessageHit, Passage };

/** Where committed memory is searched: full-text over passages and over past messages. */
export interface MemorySearch {
  searchPassages(query: string, options: PassageSearch): Promise<Passage[]>;
  searchMessages(query: string, options: MessageSearch): Promise<MessageHit[]>;
}

/**
 * An agent's memory as tools see it during one step. Block edits are staged here and committed
 * by the runner together with the step's messages and checkpoint, so they happen exactly once.
 */
export interface AgentMemory extends MemorySearch {
  /** The core blocks as they are now, staged edits included. */
  blocks(): readonly CoreBlock[];
  /** Stages a new value for a block; the caller has checked limits and read-only. */
  setBlockValue(label: string, value: string): void;
  insertPassage(text: string, tags: readonly string[]): Promise<Passage>;
}
