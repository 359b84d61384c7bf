import type { AgentRecord, RunRecord, TimerRecord } from "../records/agent-record.js";
import type { ChainRunRecord } from "../records/chain-run.js";
import type { McpServerRecord } from "../records/mcp-server.js";
import type { MemoryVersion } from "../records/memory-history.js";
import type { CoreBlock, Passage } from "../records/memory-records.js";
import type { AgentMessage } from "../records/messages.js";
import type { JournalEntry } from "../records/run-journal.js";
import type { ScheduledMessageRecord } from "../records/scheduled-message.js";
import type { SessionState } from "../records/session-state.js";
import type { StepFeedback, StepRecord } from "../records/step-record.js";
import type { ArchiveStore } from "./archive-store.js";
import type { BlockStore } from "./block-store.js";
import type { ConversationStore } from "./conversation-store.js";
import type { FolderStore } from "./folder-store.js";
import type { TurnStore } from "./turn-store.js";
import type { VectorStore } from "./vector-store.js";

/**
 * A page of a list, Letta-style: ids as cursors, relative to the sort order (by creation).
 * `after` means "further along in `order`", so paging `desc` with `after` goes back in time.
 *
 * Creation order is insertion order, not `created_at_ms` and not id order (ids are opaque).
 * A page is the first `limit` items, in `order`, strictly between `after` and `before`; a
 * cursor that names no item of this list (another project's agent, a deleted message) gives
 * an empty page, as does a `limit` below 1.
 */
export interface PageQuery {
  after?: string | undefined;
  before?: string | undefined;
  limit: number;
  order: "asc" | "desc";
}

/**
 * Which of a project's agents to list: by exact name, by a part of the name in any case
 * (JavaScript's `toLowerCase` on both), by tags (any of them, or all with `matchAllTags`).
 * Filters apply before paging, in the store: a page reads only the agents it shows, and the
 * cursors are agents of the project, whether or not they pass the filter.
 */
export interface AgentListFilter {
  name?: string | undefined;
  nameContains?: string | undefined;
  tags?: readonly string[] | undefined;
  matchAllTags?: boolean | undefined;
}

/** Which runs to list: a project's, optionally one agent's, optionally by status. */
export interface RunFilter {
  projectId: string;
  agentId?: string;
  /** Only runs still running (true) or only ended ones (false). */
  active?: boolean;
  statuses?: readonly string[];
}

/**
 * Which steps to list: a project's, optionally one agent's or one run's; `model` and the time
 * range filter the page, not the cursors (as `statuses` does for runs).
 */
export interface StepFilter {
  projectId: string;
  agentId?: string;
  runId?: string;
  /** The handle (`openai/gpt-4.1-mini`) or its model name (`gpt-4.1-mini`). */
  model?: string;
  /** Created at or after / before these times (ms). */
  fromMs?: number;
  toMs?: number;
}

/** Which passages a list keeps: those holding every one of these words (any case). */
export interface PassageFilter {
  containing?: readonly string[];
}

/** Which chain runs to list: a project's, optionally one chain's. */
export interface ChainRunFilter {
  projectId: string;
  chain?: string;
}

/** An agent with its blocks, as created in one transaction. */
export interface NewAgent {
  agent: AgentRecord;
  blocks: CoreBlock[];
  /**
   * History it starts with (an imported agent's), oldest first, written in the same
   * transaction: ids must be new, as for a step's messages.
   */
  messages?: AgentMessage[];
}

/**
 * Everything Holdfast keeps. Two implementations pass one contract suite
 * (`store.contract.ts`): SQLite (the embedded default) and in-memory (tests, DST,
 * `--store memory`). Every method validates what it reads back.
 *
 * Writes are all or nothing and reject with: `ValidationError` for an invalid row (checked
 * before anything is written), `NotFoundError` for an agent that does not exist (checked
 * first), `ConflictError` for a taken agent, message or passage id or idempotency key.
 * Message and passage ids are unique across agents. Reads of an unknown agent give empty
 * results, not errors.
 */
/** MCP servers added through the API, in the order they were added; names are unique. */
export interface McpServerStore {
  /** Adds a server or replaces the one with its id; a name another server has is a conflict. */
  put(server: McpServerRecord): Promise<void>;
  list(): Promise<McpServerRecord[]>;
  delete(id: string): Promise<boolean>;
}

/**
 * Scheduled messages (`records/scheduled-message.ts`), each write one atomic statement. Deleting
 * an agent deletes its scheduled messages.
 */
export interface ScheduleStore {
  /** Adds a scheduled message or replaces the one with its id (moving it on). */
  put(record: ScheduledMessageRecord): Promise<void>;
  get(id: string): Promise<ScheduledMessageRecord | null>;
  /** An agent's scheduled messages in creation order, after the cursor `after` (an id). */
  list(agentId: string, page: { after?: string; limit: number }): Promise<ScheduledMessageRecord[]>;
  delete(id: string): Promise<boolean>;
  /** Scheduled messages due at or before `nowMs`, soonest first. */
  due(nowMs: number): Promise<ScheduledMessageRecord[]>;
  /** The soonest of every agent's, to know when to look again. */
  next(): Promise<ScheduledMessageRecord | null>;
}

export interface Store extends TurnStore {
  readonly mcpServers: McpServerStore;
  /** Core blocks as entities: standalone, or shared by several agents (`block-store.ts`). */
  readonly blocks: BlockStore;
  readonly schedules: ScheduleStore;
  /** Conversations of agents, and message reads across agents or within a conversation. */
  readonly conversations: ConversationStore;
  /** Folders and files (Letta's sources), and the agents they are attached to. */
  readonly folders: FolderStore;
  /** Archives of passages, and the agents they are attached to (Letta's archives). */
  readonly archives: ArchiveStore;
  /** Vectors of passages and messages, written after their rows (hybrid search). */
  readonly vectors: VectorStore;
  /** Creates an agent and its blocks atomically; an existing id is an error. */
  createAgent(created: NewAgent): Promise<void>;
  getAgent(id: string): Promise<AgentRecord | null>;
  /** Replaces the agent's record (not its blocks, messages or session). */
  updateAgent(agent: AgentRecord): Promise<void>;
  /**
   * Deletes the agent and everything of it, except its blocks: they are detached, and stay
   * (as in Letta) for the agents sharing them and for `/v1/blocks`. False if there was none.
   */
  deleteAgent(id: string): Promise<boolean>;
  listAgents(projectId: string, page: PageQuery, filter?: AgentListFilter): Promise<AgentRecord[]>;

  /**
   * Writes one of the agent's blocks outside a turn (the API's block edits): the block with
   * this id if the agent has it (every agent sharing it sees the change), else a new block of
   * the agent's project attached to it.
   */
  putBlock(agentId: string, block: CoreBlock): Promise<void>;
  /** Detaches the agent's block with this label (the block itself stays); false if none. */
  detachBlock(agentId: string, label: string): Promise<boolean>;

  listMessages(agentId: string, page: PageQuery): Promise<AgentMessage[]>;
  /**
   * Every message of one run, in commit order: what a client re-attaching to it reads. These
   * are the messages its agent committed with the run's id since the run was first stored
   * (including that commit's); a run id with no run record has none. The loop stores a run with
   * its first message, so that is all of them, and SQLite reads them as a short range of the
   * agent's messages instead of keeping an index every message insert would pay for.
   */
  listRunMessages(runId: string): Promise<AgentMessage[]>;
  /**
   * The agents whose `parent_id` is `parentId`, in creation order, whatever their project.
   * Deleting a parent deletes none of its children: they are agents of their own and keep a
   * `parent_id` that no longer resolves (and are still listed under it).
   */
  listChildren(parentId: string): Promise<AgentRecord[]>;
  countMessages(agentId: string): Promise<number>;
  /** How many passages the agent holds (its archival memory), counted where they are stored. */
  countPassages(agentId: string): Promise<number>;

  insertPassages(agentId: string, passages: readonly Passage[]): Promise<void>;
  /** A page of the agent's passages; with `containing`, only those holding every word (any case). */
  listPassages(agentId: string, page: PageQuery, filter?: PassageFilter): Promise<Passage[]>;
  deletePassage(agentId: string, passageId: string): Promise<boolean>;

  loadSession(agentId: string): Promise<SessionState | null>;
  /**
   * Agents whose session was mid-turn (`running`) or waiting for its sub-agents
   * (`awaiting_children`) when the process stopped, sorted by id: to resume or re-drive at
   * start-up, since nothing in memory will wake a waiting parent after a restart.
   */
  interruptedSessions(): Promise<string[]>;

  putRun(run: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  /**
   * Runs of the agents of a project (now: an agent moved to another project takes its runs),
   * in creation order (storing a run again keeps its place), paged like every list: a cursor
   * that is not a run of this filter's project and agent gives an empty page. `active` and
   * `statuses` filter the page, not the cursors. Deleting an agent deletes its runs.
   */
  listRuns(filter: RunFilter, page: PageQuery): Promise<RunRecord[]>;
  /**
   * Step records of a project's agents, in creation order (writing one again keeps its place),
   * paged like runs: a cursor that is not a step of this filter's project, agent and run gives
   * an empty page. Deleting an agent deletes its steps.
   */
  listSteps(filter: StepFilter, page: PageQuery): Promise<StepRecord[]>;
  /** A step record by id, whatever its agent; null if none. */
  getStep(stepId: string): Promise<StepRecord | null>;
  /**
   * Sets a step's feedback (null clears it) and, when `tags` is given, its tags, in one atomic
   * write that keeps the rest of the record; the updated record, or null if there is no step.
   */
  setStepFeedback(
    stepId: string,
    feedback: StepFeedback,
    tags: readonly string[] | null,
  ): Promise<StepRecord | null>;
  /** The run an idempotency key (a message's `otid`) started, if any. */
  findRunByKey(agentId: string, key: string): Promise<RunRecord | null>;

  /**
   * The run journal of a run: the entries its commits wrote, in commit order (`[]` for a run
   * stored before journals were kept, or with no commits). Deleting the agent deletes them.
   */
  listRunJournal(runId: string): Promise<JournalEntry[]>;
  /**
   * Every change of the agent's memory, in the order made (`records/memory-history.ts`): each
   * block write or deletion and passage insert or deletion, through commits or the API.
   */
  memoryHistory(agentId: string): Promise<MemoryVersion[]>;

  /** Writes a chain run whole (inserted, or replaced in its place in the list). */
  putChainRun(run: ChainRunRecord): Promise<void>;
  getChainRun(id: string): Promise<ChainRunRecord | null>;
  /** A project's chain runs (optionally of one chain), in creation order, paged like runs. */
  listChainRuns(filter: ChainRunFilter, page: PageQuery): Promise<ChainRunRecord[]>;
  /** Chain runs not finished (running or awaiting approval), oldest first: to carry on. */
  unfinishedChainRuns(): Promise<ChainRunRecord[]>;

  /**
   * Makes the timers match the sessions: each waiting session gets the wake-ups it needs,
   * and timers no session needs go (a database written before timers were committed with
   * checkpoints may have either). Returns how many timers changed. Every commit keeps them
   * matching afterwards: it writes the session's timers with its checkpoint.
   */
  reconcileWakeUps(): Promise<number>;

  /** Sets (or moves) the agent's timer of this kind. */
  putTimer(timer: TimerRecord): Promise<void>;
  clearTimer(agentId: string, kind: TimerRecord["kind"]): Promise<void>;
  /** Timers due at or before `nowMs`, soonest first. */
  dueTimers(nowMs: number): Promise<TimerRecord[]>;
  /** The soonest timer of any agent, to know when to look again. */
  nextTimer(): Promise<TimerRecord | null>;

  close(): Promise<void>;
}
