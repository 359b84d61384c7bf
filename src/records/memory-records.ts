/** A core memory block: always in the agent's context, edited by memory tools within its limit. */
export interface CoreBlock {
  id: string;
  label: string;
  description: string;
  value: string;
  /** The most characters `value` may hold. */
  limit: number;
  readOnly: boolean;
}

/** An archival passage: long-term memory that is searched, not always in view. */
export interface Passage {
  id: string;
  text: string;
  tags: string[];
  createdAtMs: number;
}

/** A stored message found by conversation search. */
export interface MessageHit {
  id: string;
  role: "user" | "assistant" | "tool";
  text: string;
  createdAtMs: number;
}

/** What one step changed in memory, committed with the step's messages and checkpoint. */
export interface MemoryChanges {
  blocks: CoreBlock[];
  passages: Passage[];
}
