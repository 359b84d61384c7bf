import type { DatabaseSync } from "node:sqlite";
import { NotFoundError } from "../../core/errors.js";
import { AgentRecord, RunRecord, TimerRecord } from "../../records/agent-record.js";
import { ChainRunRecord } from "../../records/chain-run.js";
import type { MemoryVersion } from "../../records/memory-history.js";
import { type CoreBlock, type MessageHit, Passage } from "../../records/memory-records.js";
import { AgentMessage } from "../../records/messages.js";
import type { JournalEntry } from "../../records/run-journal.js";
import type { SessionState } from "../../records/session-state.js";
import type { StepFeedback, StepRecord } from "../../records/step-record.js";
import { DEFAULT_DURABILITY, type Durability } from "../durability.js";
import type {
  AgentListFilter,
  ChainRunFilter,
  NewAgent,
  PageQuery,
  PassageFilter,
  RunFilter,
  StepFilter,
  Store,
} from "../store.js";
import { parseInput, validateNewAgent, validateStep, wordsOf } from "../store-rows.js";
import type { MessageSearch, PassageSearch, StepCommit } from "../turn-store.js";
import { listAgents } from "./agent-filter.js";
import { SqliteArchives } from "./archives.js";
import { SqliteBlocks } from "./blocks.js";
import { listChainRuns, readChainRun, unfinishedChainRuns, writeChainRun } from "./chain-runs.js";
import { type DurabilityInForce, durabilityInForce, openConnection } from "./connection.js";
import { SqliteConversations } from "./conversations.js";
import { SqliteFolders } from "./folders.js";
import { ownedMatch, searchMessages, searchPassages } from "./full-text.js";
import { GroupCommit } from "./group-commit.js";
import { SqliteHistory } from "./history.js";
import { SqliteMcpServers } from "./mcp-servers.js";
import {
  bodies,
  body,
  changed,
  pageBounds,
  passageOf,
  seqFrom,
  sessionOf,
  storageError,
  text,
  timerOf,
} from "./rows.js";
import { writeMessage, writePassage } from "./rows-written.js";
import { listRuns, readRun, runByKey, runMessages, writeRun } from "./runs.js";
import { SqliteSchedules } from "./schedules.js";
import { prepareStatements, type Statements, transactionControl } from "./statements.js";
import { SqliteSteps } from "./steps.js";
import { SqliteVectors } from "./vectors.js";
import { reconcileWakeUps, writeWakeUps } from "./wake-ups.js";
import { WalFlusher } from "./wal-flush.js";

/**
 * Opens (creating if need be) a SQLite store at `path`, or in memory for `":memory:"`, and
 * brings its schema up to date; with durability `full`, `flush` syncs its WAL (decision 030).
 *
 * @example const store = await openSqliteStore("data/holdfast.db");
 */
export async function openSqliteStore(
  path: string,
  options: { durability?: Durability } = {},
): Promise<SqliteStore> {
  const durability = options.durability ?? DEFAULT_DURABILITY;
  const db = openConnection(path, durability);
  const flusher =
    durability === "full" && path !== ":memory:" ? new WalFlusher(db, `${path}-wal`) : null;
  return new SqliteStore(db, prepareStatements(db), durability, flusher);
}

/**
 * The Store over one SQLite connection. Every write is one `BEGIN IMMEDIATE` transaction.
 * Members are TypeScript-private rather than `#private` so that a store can be decorated with
 * `Object.create(store, …)` (tests do, to inject failures): `#` members refuse such receivers.
 */
export class SqliteStore implements Store {
  private readonly group: GroupCommit;
  readonly blocks: SqliteBlocks;

  constructor(
    private readonly db: DatabaseSync,
    private readonly sql: Statements,
    private readonly durability: Durability,
    /** Syncs the WAL for `flush` (durability `full` on a file); counts its syncs. */
    readonly flusher: WalFlusher | null = null,
    readonly mcpServers = new SqliteMcpServers(db),
    readonly schedules = new SqliteSchedules(db),
    readonly conversations = new SqliteConversations(db, sql),
    readonly folders = new SqliteFolders(db),
    readonly archives = new SqliteArchives(db),
    readonly vectors = new SqliteVectors(db),
    private readonly steps = new SqliteSteps(db),
    private readonly history = new SqliteHistory(db),
  ) {
    this.blocks = new SqliteBlocks(db, history, (work, agentId) => this.transaction(work, agentId));
    this.group = new GroupCommit(transactionControl(db, sql));
  }

  /**
   * Runs `work` in one transaction; on any error rolls it back and maps the error. Given the
   * id of an agent that must exist, a missing agent is reported before anything else, and
   * `work` gets the agent's key (its `seq`, which marks its rows in the full-text indexes).
   */
  private transaction<T>(work: (agentKey: number) => T, agentId?: string): T {
    try {
      this.sql.begin.run();
    } catch (error) {
      throw storageError(error, agentId);
    }
    try {
      const agentKey = agentId === undefined ? 0 : seqFrom(this.sql.agentKey, agentId);
      if (agentKey === null) throw new NotFoundError("agent", agentId as string);
      const result = work(agentKey);
      this.sql.commit.run();
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.sql.rollback.run();
      throw storageError(error, agentId);
    }
  }

  /** The durability this store's connection runs with, as SQLite reports it. */
  durabilityInForce(): DurabilityInForce {
    return durabilityInForce(this.db, this.durability);
  }

  async createAgent(created: NewAgent): Promise<void> {
    const { agent, blocks, messages = [] } = validateNewAgent(created);
    this.transaction(() => {
      this.sql.insertAgent.run(agent.id, agent.project_id, agent.parent_id, JSON.stringify(agent));
      this.blocks.createFor(agent.id, agent.project_id, blocks);
      if (messages.length > 0) {
        const agentKey = seqFrom(this.sql.agentKey, agent.id) as number;
        for (const message of messages) writeMessage(this.sql, agentKey, agent.id, message);
      }
      this.history.created(agent.id, blocks, messages.length);
    });
  }

  async getAgent(id: string): Promise<AgentRecord | null> {
    return body(this.sql.getAgent.get(id), AgentRecord, "agent");
  }

  async updateAgent(agent: AgentRecord): Promise<void> {
    const record = parseInput(AgentRecord, agent, ["agent"]);
    const result = this.transaction(() =>
      this.sql.updateAgent.run(
        record.project_id,
        record.parent_id,
        JSON.stringify(record),
        record.id,
      ),
    );
    if (!changed(result)) throw new NotFoundError("agent", record.id);
  }

  async deleteAgent(id: string): Promise<boolean> {
    return changed(
      this.transaction(() => {
        this.blocks.forgetAgent(id);
        return this.sql.deleteAgent.run(id);
      }),
    );
  }

  async listAgents(projectId: string, page: PageQuery, filter?: AgentListFilter) {
    return listAgents(this.sql, projectId, page, filter);
  }

  async putBlock(agentId: string, block: CoreBlock): Promise<void> {
    this.blocks.put(agentId, block);
  }

  async detachBlock(agentId: string, label: string): Promise<boolean> {
    return this.blocks.detach(agentId, label);
  }

  async loadBlocks(agentId: string): Promise<CoreBlock[]> {
    return this.blocks.load(agentId);
  }

  /** Steps of concurrent agents share one transaction (group commit); each is atomic alone. */
  async commit(step: StepCommit): Promise<void> {
    const { agentId, state, messages, memory, run, steps, stepUpdates, journal } =
      validateStep(step);
    const stateJson = JSON.stringify(state);
    await this.group
      .run(() => {
        const agentKey = seqFrom(this.sql.agentKey, agentId);
        if (agentKey === null) throw new NotFoundError("agent", agentId);
        let firstOfRun: number | null = null;
        for (const message of messages) {
          const seq = writeMessage(this.sql, agentKey, agentId, message);
          if (firstOfRun === null && run && message.run_id === run.id) firstOfRun = seq;
        }
        const blocks = this.blocks.commitEdits(agentId, memory);
        for (const passage of memory.passages) writePassage(this.sql, agentKey, agentId, passage);
        this.history.committed(agentId, { ...memory, blocks });
        if (journal && state.run_id) this.history.appendJournal(agentId, state.run_id, journal);
        this.sql.putSession.run(agentId, state.version, state.phase, stateJson);
        writeWakeUps(this.sql, agentId, state);
        if (run) writeRun(this.sql, run, firstOfRun);
        if (steps) this.steps.write(steps);
        if (stepUpdates) this.steps.update(agentId, stepUpdates);
      })
      .catch((error: unknown) => {
        throw storageError(error, agentId);
      });
  }

  async recentMessages(
    agentId: string,
    limit: number,
    conversationId?: string | null,
  ): Promise<AgentMessage[]> {
    const count = Math.floor(limit);
    if (!(count > 0)) return [];
    if (conversationId !== undefined)
      return this.conversations.recentRows(agentId, count, conversationId).reverse();
    const rows = this.sql.recentMessages.all(agentId, count);
    return bodies(rows, AgentMessage, "message").reverse();
  }

  async listMessages(agentId: string, page: PageQuery): Promise<AgentMessage[]> {
    const bounds = pageBounds(page, (id) => seqFrom(this.sql.messageSeq, id, agentId));
    if (!bounds) return [];
    const statement = page.order === "asc" ? this.sql.messagesAsc : this.sql.messagesDesc;
    const rows = statement.all(agentId, bounds.lower, bounds.upper, bounds.limit);
    return bodies(rows, AgentMessage, "message");
  }

  async countMessages(agentId: string): Promise<number> {
    return Number(this.sql.countMessages.get(agentId)?.n ?? 0);
  }

  async countPassages(agentId: string): Promise<number> {
    return Number(this.sql.countPassages.get(agentId)?.n ?? 0);
  }

  async searchMessages(
    agentId: string,
    query: string,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    return searchMessages(this.sql, this.match(agentId, query), options);
  }

  async searchPassages(agentId: string, query: string, options: PassageSearch): Promise<Passage[]> {
    return searchPassages(this.sql, this.match(agentId, query), options);
  }

  /** The MATCH expression for a search of one agent's rows; null if nothing can match. */
  private match(agentId: string, query: string): string | null {
    const agentKey = seqFrom(this.sql.agentKey, agentId);
    return agentKey === null ? null : ownedMatch(agentKey, query);
  }

  async insertPassages(agentId: string, passages: readonly Passage[]): Promise<void> {
    const parsed = passages.map((passage, i) => parseInput(Passage, passage, ["passages", i]));
    this.transaction((agentKey) => {
      for (const passage of parsed) writePassage(this.sql, agentKey, agentId, passage);
      this.history.edited(
        agentId,
        parsed.map((passage) => ({ kind: "passage" as const, id: passage.id })),
      );
    }, agentId);
  }

  async listPassages(
    agentId: string,
    page: PageQuery,
    filter: PassageFilter = {},
  ): Promise<Passage[]> {
    const bounds = pageBounds(page, (id) => seqFrom(this.sql.passageSeq, id, agentId));
    if (!bounds) return [];
    const statement = page.order === "asc" ? this.sql.passagesAsc : this.sql.passagesDesc;
    const words = wordsOf(filter);
    const { lower, upper, limit } = bounds;
    const rows = statement.all(agentId, lower, upper, limit, words && JSON.stringify(words));
    return rows.map(passageOf);
  }

  async deletePassage(agentId: string, passageId: string): Promise<boolean> {
    return this.transaction(() => {
      const deletion = this.history.passageDeletion(agentId, passageId);
      if (deletion) this.history.edited(agentId, [deletion]);
      return changed(this.sql.deletePassage.run(agentId, passageId));
    });
  }

  async loadSession(agentId: string): Promise<SessionState | null> {
    return sessionOf(this.sql.loadSession.get(agentId));
  }

  async interruptedSessions(): Promise<string[]> {
    return this.sql.interruptedSessions.all().map((row) => text(row, "agent_id"));
  }

  async putRun(run: RunRecord): Promise<void> {
    const parsed = parseInput(RunRecord, run, ["run"]);
    this.transaction(() => writeRun(this.sql, parsed), parsed.agent_id);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    return readRun(this.sql, runId);
  }

  async listRunMessages(runId: string): Promise<AgentMessage[]> {
    return runMessages(this.sql, runId);
  }

  async listRuns(filter: RunFilter, page: PageQuery): Promise<RunRecord[]> {
    return listRuns(this.sql, filter, page);
  }

  async listRunJournal(runId: string): Promise<JournalEntry[]> {
    return this.history.runJournal(runId);
  }

  async memoryHistory(agentId: string): Promise<MemoryVersion[]> {
    return this.history.memoryHistory(agentId);
  }

  async listChildren(parentId: string): Promise<AgentRecord[]> {
    return bodies(this.sql.childrenOf.all(parentId), AgentRecord, "agent");
  }

  async findRunByKey(agentId: string, key: string): Promise<RunRecord | null> {
    return runByKey(this.sql, agentId, key);
  }

  async getStep(stepId: string): Promise<StepRecord | null> {
    return this.steps.get(stepId);
  }

  async setStepFeedback(id: string, feedback: StepFeedback, tags: readonly string[] | null) {
    return this.steps.setFeedback(id, feedback, tags);
  }

  async listSteps(filter: StepFilter, page: PageQuery): Promise<StepRecord[]> {
    return this.steps.list(filter, page);
  }

  async putChainRun(run: ChainRunRecord): Promise<void> {
    const parsed = parseInput(ChainRunRecord, run, ["chain_run"]);
    this.transaction(() => writeChainRun(this.sql, parsed));
  }

  async getChainRun(id: string): Promise<ChainRunRecord | null> {
    return readChainRun(this.sql, id);
  }

  async listChainRuns(filter: ChainRunFilter, page: PageQuery): Promise<ChainRunRecord[]> {
    return listChainRuns(this.sql, filter, page);
  }

  async unfinishedChainRuns(): Promise<ChainRunRecord[]> {
    return unfinishedChainRuns(this.sql);
  }

  async reconcileWakeUps(): Promise<number> {
    return this.transaction(() => reconcileWakeUps(this.sql));
  }

  async putTimer(timer: TimerRecord): Promise<void> {
    const parsed = parseInput(TimerRecord, timer, ["timer"]);
    this.transaction(
      () => this.sql.putTimer.run(parsed.agent_id, parsed.kind, parsed.due_at_ms),
      parsed.agent_id,
    );
  }

  async clearTimer(agentId: string, kind: TimerRecord["kind"]): Promise<void> {
    this.transaction(() => this.sql.clearTimer.run(agentId, kind));
  }

  async dueTimers(nowMs: number): Promise<TimerRecord[]> {
    return this.sql.dueTimers.all(nowMs).map(timerOf);
  }

  async nextTimer(): Promise<TimerRecord | null> {
    const row = this.sql.nextTimer.get();
    return row === undefined ? null : timerOf(row);
  }

  /** Every commit so far on disk: with `full`, one WAL sync shared by all waiting (030). */
  async flush(): Promise<void> {
    await this.flusher?.flush();
  }

  async close(): Promise<void> {
    if (!this.db.isOpen) return;
    this.group.flush();
    await this.flusher?.close();
    this.db.close();
  }
}
