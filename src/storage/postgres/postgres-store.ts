import type pg from "pg";
import { NotFoundError } from "../../core/errors.js";
import { AgentRecord, RunRecord, TimerRecord } from "../../records/agent-record.js";
import { ChainRunRecord } from "../../records/chain-run.js";
import type { MemoryVersion } from "../../records/memory-history.js";
import { type CoreBlock, type MessageHit, Passage } from "../../records/memory-records.js";
import { AgentMessage } from "../../records/messages.js";
import type { JournalEntry } from "../../records/run-journal.js";
import type { SessionState } from "../../records/session-state.js";
import type { StepFeedback, StepRecord } from "../../records/step-record.js";
import { filtersAgents } from "../agent-list-filter.js";
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
import { parseInput, runStatuses, validateNewAgent, validateStep, wordsOf } from "../store-rows.js";
import type { MessageSearch, PassageSearch, StepCommit } from "../turn-store.js";
import { filteredAgents } from "./agent-list.js";
import { PostgresArchives } from "./archives.js";
import { createFor, forgetAgent, PostgresBlocks } from "./blocks.js";
import { listChainRuns, readChainRun, unfinishedChainRuns, writeChainRun } from "./chain-runs.js";
import { commitStep } from "./commit.js";
import { PostgresConversations } from "./conversations.js";
import { PostgresFolders } from "./folders.js";
import { ownedQueryTerms } from "./full-text.js";
import {
  memoryHistory,
  passageDeletion,
  rememberCreated,
  rememberEdited,
  runJournal,
} from "./history.js";
import { PostgresMcpServers } from "./mcp-servers.js";
import { pageBounds } from "./paging.js";
import { inTransaction, keyOf, openPool, type PostgresStoreOptions, type Tx } from "./pool.js";
import { bodies, body, passageOf, type Row, seqOf, sessionOf, text, timerOf } from "./rows.js";
import { PostgresSchedules } from "./schedules.js";
import { searchMessages, searchPassages } from "./search.js";
import { SQL } from "./statements.js";
import { writeMessages, writePassages, writeRun } from "./step-writer.js";
import { listSteps, readStep, setStepFeedback } from "./steps.js";
import { PostgresVectors } from "./vectors.js";
import { reconcileWakeUps } from "./wake-ups.js";

/**
 * Opens a PostgreSQL store at `url` (a `postgres://` URL), bringing its schema up to date.
 *
 * @example
 * const store = await openPostgresStore("postgres://holdfast@db/holdfast", { poolSize: 20 });
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  return new PostgresStore(await openPool(url, options));
}

/**
 * The Store over a pool of PostgreSQL connections. Every write is one transaction on one
 * connection; steps of different agents commit in parallel on different connections, and
 * PostgreSQL shares WAL flushes among the commits that arrive together.
 */
export class PostgresStore implements Store {
  readonly mcpServers: PostgresMcpServers;
  readonly schedules: PostgresSchedules;
  readonly folders: PostgresFolders;
  readonly archives: PostgresArchives;
  readonly vectors: PostgresVectors;
  readonly blocks: PostgresBlocks;
  readonly conversations: PostgresConversations;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {
    this.mcpServers = new PostgresMcpServers(pool);
    this.blocks = new PostgresBlocks(pool);
    this.schedules = new PostgresSchedules(pool);
    this.folders = new PostgresFolders(pool);
    this.archives = new PostgresArchives(pool);
    this.vectors = new PostgresVectors(pool);
    this.conversations = new PostgresConversations(pool);
  }

  private async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows;
  }

  private tx<T>(work: (tx: Tx, agentKey: number) => Promise<T>, agentId?: string): Promise<T> {
    return inTransaction(this.pool, work, agentId);
  }

  private async seq(sql: string, ...params: unknown[]): Promise<number | null> {
    return seqOf((await this.rows(sql, params))[0]);
  }

  async createAgent(created: NewAgent): Promise<void> {
    const { agent, blocks, messages = [] } = validateNewAgent(created);
    await this.tx(async (tx) => {
      const row = [agent.id, agent.project_id, agent.parent_id, JSON.stringify(agent)];
      await tx.query(SQL.insertAgent, row);
      await createFor(tx, agent.id, agent.project_id, blocks);
      if (messages.length > 0)
        await writeMessages(tx, (await keyOf(tx, agent.id)) as number, agent.id, messages);
      await rememberCreated(tx, agent.id, blocks, messages.length);
    });
  }

  async getAgent(id: string): Promise<AgentRecord | null> {
    return body((await this.rows(SQL.getAgent, [id]))[0], AgentRecord, "agent");
  }

  async updateAgent(agent: AgentRecord): Promise<void> {
    const record = parseInput(AgentRecord, agent, ["agent"]);
    const params = [record.project_id, record.parent_id, JSON.stringify(record), record.id];
    const updated = await this.tx(async (tx) => (await tx.query(SQL.updateAgent, params)).rowCount);
    if (!updated) throw new NotFoundError("agent", record.id);
  }

  async deleteAgent(id: string): Promise<boolean> {
    return this.tx(async (tx) => {
      await forgetAgent(tx, id);
      return ((await tx.query(SQL.deleteAgent, [id])).rowCount ?? 0) > 0;
    });
  }

  async listAgents(
    projectId: string,
    page: PageQuery,
    filter?: AgentListFilter,
  ): Promise<AgentRecord[]> {
    const bounds = await pageBounds(page, (id) => this.seq(SQL.agentSeq, id, projectId));
    if (!bounds) return [];
    const asc = page.order === "asc";
    if (filtersAgents(filter)) {
      const rows = await filteredAgents(this.pool, projectId, bounds, asc, filter);
      return bodies(rows, AgentRecord, "agent");
    }
    const sql = asc ? SQL.agentsAsc : SQL.agentsDesc;
    const rows = await this.rows(sql, [projectId, bounds.lower, bounds.upper, bounds.limit]);
    return bodies(rows, AgentRecord, "agent");
  }

  async listChildren(parentId: string): Promise<AgentRecord[]> {
    return bodies(await this.rows(SQL.childrenOf, [parentId]), AgentRecord, "agent");
  }

  async putBlock(agentId: string, block: CoreBlock): Promise<void> {
    await this.blocks.put(agentId, block);
  }

  async detachBlock(agentId: string, label: string): Promise<boolean> {
    return this.blocks.detach(agentId, label);
  }

  async loadBlocks(agentId: string): Promise<CoreBlock[]> {
    return this.blocks.load(agentId);
  }

  /** One statement per step (atomic alone): messages, memory, the checkpoint, timers, run. */
  async commit(step: StepCommit): Promise<void> {
    await commitStep(this.pool, validateStep(step));
  }

  async getStep(stepId: string): Promise<StepRecord | null> {
    return readStep(this.pool, stepId);
  }

  async setStepFeedback(id: string, feedback: StepFeedback, tags: readonly string[] | null) {
    return setStepFeedback(this.pool, id, feedback, tags);
  }

  async listSteps(filter: StepFilter, page: PageQuery): Promise<StepRecord[]> {
    return listSteps(this.pool, filter, page);
  }

  async listRunJournal(runId: string): Promise<JournalEntry[]> {
    return runJournal(this.pool, runId);
  }

  async memoryHistory(agentId: string): Promise<MemoryVersion[]> {
    return memoryHistory(this.pool, agentId);
  }

  async recentMessages(
    agentId: string,
    limit: number,
    conversationId?: string | null,
  ): Promise<AgentMessage[]> {
    const count = Math.floor(limit);
    if (!(count > 0)) return [];
    if (conversationId !== undefined)
      return (await this.conversations.recentRows(agentId, count, conversationId)).reverse();
    const rows = await this.rows(SQL.recentMessages, [agentId, count]);
    return bodies(rows, AgentMessage, "message").reverse();
  }

  async listMessages(agentId: string, page: PageQuery): Promise<AgentMessage[]> {
    const bounds = await pageBounds(page, (id) => this.seq(SQL.messageSeq, id, agentId));
    if (!bounds) return [];
    const sql = page.order === "asc" ? SQL.messagesAsc : SQL.messagesDesc;
    const rows = await this.rows(sql, [agentId, bounds.lower, bounds.upper, bounds.limit]);
    return bodies(rows, AgentMessage, "message");
  }

  async listRunMessages(runId: string): Promise<AgentMessage[]> {
    const start = (await this.rows(SQL.runStart, [runId]))[0];
    if (!start) return [];
    const params = [text(start, "agent_id"), seqOf(start, "first_seq"), runId];
    return bodies(await this.rows(SQL.runMessages, params), AgentMessage, "message");
  }

  async countMessages(agentId: string): Promise<number> {
    return Number((await this.rows(SQL.countMessages, [agentId]))[0]?.n ?? 0);
  }

  async countPassages(agentId: string): Promise<number> {
    return Number((await this.rows(SQL.countPassages, [agentId]))[0]?.n ?? 0);
  }

  async searchMessages(
    agentId: string,
    query: string,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    const terms = await this.queryTerms(agentId, query);
    const limit = Math.floor(options.limit);
    if (terms.length === 0 || !(limit > 0)) return [];
    return searchMessages(this.pool, agentId, terms, options, limit);
  }

  async searchPassages(agentId: string, query: string, options: PassageSearch): Promise<Passage[]> {
    const terms = await this.queryTerms(agentId, query);
    const limit = Math.floor(options.topK);
    if (terms.length === 0 || !(limit > 0)) return [];
    return searchPassages(this.pool, agentId, terms, options, limit);
  }

  /** The agent's search terms for a query; none for an unknown agent or a query of no words. */
  private async queryTerms(agentId: string, query: string): Promise<string[]> {
    const agentKey = await keyOf(this.pool, agentId);
    return agentKey === null ? [] : ownedQueryTerms(agentKey, query);
  }

  async insertPassages(agentId: string, passages: readonly Passage[]): Promise<void> {
    const parsed = passages.map((passage, i) => parseInput(Passage, passage, ["passages", i]));
    await this.tx(async (tx, agentKey) => {
      await writePassages(tx, agentKey, agentId, parsed);
      const added = parsed.map((passage) => ({ kind: "passage" as const, id: passage.id }));
      await rememberEdited(tx, agentId, added);
    }, agentId);
  }

  async listPassages(
    agentId: string,
    page: PageQuery,
    filter: PassageFilter = {},
  ): Promise<Passage[]> {
    const bounds = await pageBounds(page, (id) => this.seq(SQL.passageSeq, id, agentId));
    if (!bounds) return [];
    const sql = page.order === "asc" ? SQL.passagesAsc : SQL.passagesDesc;
    const { lower, upper, limit } = bounds;
    return (await this.rows(sql, [agentId, lower, upper, limit, wordsOf(filter)])).map(passageOf);
  }

  async deletePassage(agentId: string, passageId: string): Promise<boolean> {
    return this.tx(async (tx) => {
      const deletion = await passageDeletion(tx, agentId, passageId);
      if (deletion) await rememberEdited(tx, agentId, [deletion]);
      return ((await tx.query(SQL.deletePassage, [agentId, passageId])).rowCount ?? 0) > 0;
    });
  }

  async loadSession(agentId: string): Promise<SessionState | null> {
    return sessionOf((await this.rows(SQL.loadSession, [agentId]))[0]);
  }

  async interruptedSessions(): Promise<string[]> {
    return (await this.rows(SQL.interruptedSessions)).map((row) => text(row, "agent_id"));
  }

  async putRun(run: RunRecord): Promise<void> {
    const parsed = parseInput(RunRecord, run, ["run"]);
    await this.tx((tx) => writeRun(tx, parsed, null), parsed.agent_id);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    return body((await this.rows(SQL.getRun, [runId]))[0], RunRecord, "run");
  }

  async listRuns(filter: RunFilter, page: PageQuery): Promise<RunRecord[]> {
    const agent = filter.agentId ?? null;
    const bounds = await pageBounds(page, (id) =>
      this.seq(SQL.runOrder, id, filter.projectId, agent),
    );
    if (!bounds) return [];
    const sql = page.order === "asc" ? SQL.runsAsc : SQL.runsDesc;
    const { lower, upper, limit } = bounds;
    const params = [filter.projectId, agent, runStatuses(filter), lower, upper, limit];
    return bodies(await this.rows(sql, params), RunRecord, "run");
  }

  async findRunByKey(agentId: string, key: string): Promise<RunRecord | null> {
    return body((await this.rows(SQL.findRunByKey, [agentId, key]))[0], RunRecord, "run");
  }

  async putChainRun(run: ChainRunRecord): Promise<void> {
    const parsed = parseInput(ChainRunRecord, run, ["chain_run"]);
    await this.tx((tx) => writeChainRun(tx, parsed));
  }

  async getChainRun(id: string): Promise<ChainRunRecord | null> {
    return readChainRun(this.pool, id);
  }

  async listChainRuns(filter: ChainRunFilter, page: PageQuery): Promise<ChainRunRecord[]> {
    return listChainRuns(this.pool, filter, page);
  }

  async unfinishedChainRuns(): Promise<ChainRunRecord[]> {
    return unfinishedChainRuns(this.pool);
  }

  async reconcileWakeUps(): Promise<number> {
    return this.tx((tx) => reconcileWakeUps(tx));
  }

  async putTimer(timer: TimerRecord): Promise<void> {
    const { agent_id, kind, due_at_ms } = parseInput(TimerRecord, timer, ["timer"]);
    await this.tx((tx) => tx.query(SQL.putTimer, [agent_id, kind, due_at_ms]), agent_id);
  }

  async clearTimer(agentId: string, kind: TimerRecord["kind"]): Promise<void> {
    await this.pool.query(SQL.clearTimer, [agentId, kind]);
  }

  async dueTimers(nowMs: number): Promise<TimerRecord[]> {
    return (await this.rows(SQL.dueTimers, [nowMs])).map(timerOf);
  }

  async nextTimer(): Promise<TimerRecord | null> {
    const row = (await this.rows(SQL.nextTimer))[0];
    return row === undefined ? null : timerOf(row);
  }

  /** Waits for queries in flight, then closes every connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
