import type { RunRecord } from "../records/agent-record.js";
import type { CoreBlock, MemoryChanges, MessageHit, Passage } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";
import type { JournalEntry } from "../records/run-journal.js";
import type { SessionState } from "../records/session-state.js";
import type { StepRecord, StepUpdate } from "../records/step-record.js";
import type { FolderStore } from "./folder-store.js";

/** How a passage search filters: tags (all of / any of) and the creation time range. */
export interface PassageSearch {
  topK: number;
  /** Passages with every one of these tags. */
  tags?: readonly string[];
  /** Passages with at least one of these tags. */
  anyTags?: readonly string[];
  /** Created at or after / at or before these times (ms). */
  fromMs?: number;
  toMs?: number;
}

/** How a conversation search filters: roles, and a run whose messages it leaves out. */
export interface MessageSearch {
  limit: number;
  roles?: readonly string[];
  /** Leave out this run's messages (the turn that searches: its own question is no answer). */
  excludeRunId?: string;
}

/** Everything one step of the loop changed: committed together, or not at all. */
export interface StepCommit {
  agentId: string;
  state: SessionState;
  messages: AgentMessage[];
  memory: MemoryChanges;
  /** The run's record as of this step: created with the turn's first commit, ended with its last. */
  run?: RunRecord;
  /**
   * Step records this commit writes whole: inserted, or replaced in place (same id). Each
   * belongs to this commit's agent.
   */
  steps?: StepRecord[];
  /**
   * Changes to this agent's stored step records, applied after `steps` (see StepUpdate); one
   * naming a step the agent has no record of changes nothing.
   */
  stepUpdates?: StepUpdate[];
  /** The run journal's entries for this commit (of the run `state.run_id`), for replay. */
  journal?: JournalEntry[];
}

/**
 * What the agent loop needs from storage during a turn. History reads are bounded: a turn
 * needs the context window, not all history, so its cost does not grow with the conversation.
 */
export interface TurnStore {
  /** The agent's core blocks as last committed. */
  loadBlocks(agentId: string): Promise<CoreBlock[]>;
  /**
   * The newest `limit` messages of the agent, oldest first: of every conversation, or with
   * `conversationId` of that one only (null: the default conversation, messages without one).
   */
  recentMessages(
    agentId: string,
    limit: number,
    conversationId?: string | null,
  ): Promise<AgentMessage[]>;
  searchMessages(agentId: string, query: string, options: MessageSearch): Promise<MessageHit[]>;
  searchPassages(agentId: string, query: string, options: PassageSearch): Promise<Passage[]>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Commits a step atomically: messages, memory changes, the session checkpoint, the run and steps. */
  commit(step: StepCommit): Promise<void>;
  /**
   * Resolves once every commit so far would survive power loss, where the store promises that
   * only when asked (SQLite with durability `full`, decision 030): called before anything is
   * acknowledged outside the process. Absent, or at once, where commits are on disk when they
   * resolve (PostgreSQL) or the store promises less (`normal`, in memory).
   */
  flush?(): Promise<void>;
  /** The agent's folders and open files, shown in its context; none without it. */
  readonly folders?: Pick<FolderStore, "agentFolders" | "agentFiles" | "getFolder">;
}
