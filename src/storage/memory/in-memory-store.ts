import { ConflictError, NotFoundError } from "../../core/errors.js";
import { AgentRecord, RunRecord, TimerRecord } from "../../records/agent-record.js";
import type { ChainRunRecord } from "../../records/chain-run.js";
import type { MemoryVersion } from "../../records/memory-history.js";
import { type CoreBlock, type MessageHit, Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import type { JournalEntry } from "../../records/run-journal.js";
import type { SessionState } from "../../records/session-state.js";
import type { StepFeedback, StepRecord } from "../../records/step-record.js";
import { passesAgentFilter } from "../agent-list-filter.js";
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
import { InMemoryArchives } from "./archives.js";
import { InMemoryBlocks } from "./blocks.js";
import { InMemoryChainRuns } from "./chain-runs.js";
import { InMemoryConversations, inConversation } from "./conversations.js";
import { InMemoryFolders } from "./folders.js";
import { searchMessages, searchPassages } from "./full-text.js";
import { InMemoryHistory } from "./history.js";
import { InMemoryMcpServers } from "./mcp-servers.js";
import { copy, pageOf } from "./rows.js";
import { InMemoryRuns } from "./runs.js";
import { InMemorySchedules } from "./schedules.js";
import { InMemorySteps } from "./steps.js";
import { InMemoryTimers } from "./timers.js";
import { InMemoryVectors } from "./vectors.js";

interface AgentRows {
  record: AgentRecord;
  messages: AgentMessage[];
  passages: Passage[];
  session: SessionState | null;
}

/**
 * A full Store in process memory: for tests, deterministic simulation and `--store memory`.
 * It copies everything on the way in and out, so callers never share objects with it, and it
 * checks a whole write before applying any of it, so a failed write changes nothing.
 */
export function createInMemoryStore(): Store {
  return new InMemoryStore();
}

/**
 * Members are TypeScript-private rather than `#private` so that a store can be decorated with
 * `Object.create(store, …)` (tests do, to inject failures): `#` members refuse such receivers.
 */
class InMemoryStore implements Store {
  readonly mcpServers = new InMemoryMcpServers();
  readonly folders = new InMemoryFolders((agentId) => this.agents.has(agentId));
  readonly archives = new InMemoryArchives((agentId) => this.agents.has(agentId));
  readonly vectors = new InMemoryVectors(
    (agentId) => this.agents.get(agentId),
    () => [...this.agents.keys()],
  );
  /** In creation order (a Map keeps insertion order). */
  private readonly agents = new Map<string, AgentRows>();
  readonly conversations = new InMemoryConversations({
    agent: (agentId) => this.agents.get(agentId),
    agentIds: () => [...this.agents.keys()],
    messageSeq: (messageId) => this.messageOrder.get(messageId),
    append: (agentId, messages) => {
      const rows = this.agent(agentId);
      if (messages.some((m) => this.messageOrder.has(m.id)))
        throw new ConflictError("a message id is taken");
      for (const m of messages) this.messageOrder.set(m.id, ++this.messagesStored);
      rows.messages.push(...copy(messages));
    },
  });
  /**
   * Message ids (unique across agents, as in the SQLite store) with their place among all
   * messages ever stored, 1, 2, …: SQLite's `messages.seq`.
   */
  private readonly messageOrder = new Map<string, number>();
  private messagesStored = 0;
  private readonly passageIds = new Set<string>();
  private readonly runs = new InMemoryRuns();
  private readonly chainRuns = new InMemoryChainRuns();
  private readonly steps = new InMemorySteps();
  private readonly history = new InMemoryHistory();
  private readonly timers = new InMemoryTimers();
  readonly blocks = new InMemoryBlocks((agentId) => {
    const rows = this.agents.get(agentId);
    return rows && { projectId: rows.record.project_id, messages: rows.messages.length };
  }, this.history);
  readonly schedules = new InMemorySchedules((agentId) => this.agents.has(agentId));

  private agent(agentId: string): AgentRows {
    const rows = this.agents.get(agentId);
    if (!rows) throw new NotFoundError("agent", agentId);
    return rows;
  }

  async createAgent(created: NewAgent): Promise<void> {
    const { agent, blocks, messages = [] } = copy(validateNewAgent(created));
    if (this.agents.has(agent.id)) {
      throw new ConflictError(`agent '${agent.id}' already exists`);
    }
    for (const message of messages) {
      if (this.messageOrder.has(message.id))
        throw new ConflictError(`message '${message.id}' already exists`);
    }
    this.blocks.createFor(agent.id, agent.project_id, blocks);
    for (const message of messages) this.messageOrder.set(message.id, ++this.messagesStored);
    this.agents.set(agent.id, {
      record: agent,
      messages,
      passages: [],
      session: null,
    });
    this.history.created(agent.id, blocks, messages.length);
  }

  async getAgent(id: string): Promise<AgentRecord | null> {
    const rows = this.agents.get(id);
    return rows ? copy(rows.record) : null;
  }

  async updateAgent(agent: AgentRecord): Promise<void> {
    const record = copy(parseInput(AgentRecord, agent, ["agent"]));
    this.agent(record.id).record = record;
  }

  async deleteAgent(id: string): Promise<boolean> {
    const rows = this.agents.get(id);
    if (!rows) return false;
    for (const message of rows.messages) this.messageOrder.delete(message.id);
    for (const passage of rows.passages) this.passageIds.delete(passage.id);
    this.runs.deleteAgent(id);
    this.timers.deleteAgent(id);
    this.schedules.deleteAgent(id);
    this.steps.deleteAgent(id);
    this.blocks.forgetAgent(id);
    this.conversations.forgetAgent(id);
    this.folders.forgetAgent(id);
    this.archives.forgetAgent(id);
    this.agents.delete(id);
    this.history.forget(id);
    return true;
  }

  async listAgents(projectId: string, page: PageQuery, filter?: AgentListFilter) {
    const inProject = [...this.agents.values()].flatMap(({ record }) =>
      record.project_id === projectId ? [record] : [],
    );
    return pageOf(inProject, page, filter && ((r) => passesAgentFilter(r, filter))).map(copy);
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

  async commit(step: StepCommit): Promise<void> {
    const { agentId, state, messages, memory, run, steps, stepUpdates, journal } = copy(
      validateStep(step),
    );
    const rows = this.agent(agentId);
    for (const message of messages) {
      if (this.messageOrder.has(message.id)) {
        throw new ConflictError(`message '${message.id}' already exists`);
      }
    }
    this.checkNewPassages(memory.passages);
    if (run) this.runs.checkKey(run);
    this.steps.check(steps ?? []);
    const blockEdits = this.blocks.prepareCommit(agentId, memory);
    // Everything is checked: from here on nothing can fail, so the commit is all or nothing.
    const firstOfStep = this.messagesStored + 1;
    for (const message of messages) this.messageOrder.set(message.id, ++this.messagesStored);
    rows.messages.push(...messages);
    blockEdits.write();
    this.addPassages(rows, memory.passages);
    this.history.committed(agentId, { ...memory, blocks: blockEdits.blocks }, rows.messages.length);
    if (journal && state.run_id) this.history.appendJournal(agentId, state.run_id, journal);
    rows.session = state;
    this.timers.setWakeUps(agentId, state);
    if (run) this.runs.set(run, firstOfStep);
    this.steps.write(steps ?? []);
    this.steps.update(agentId, stepUpdates ?? []);
  }

  async recentMessages(
    agentId: string,
    limit: number,
    conversationId?: string | null,
  ): Promise<AgentMessage[]> {
    const count = Math.floor(limit);
    if (!(count > 0)) return [];
    const all = this.agents.get(agentId)?.messages ?? [];
    const kept =
      conversationId === undefined ? all : all.filter((m) => inConversation(m, conversationId));
    return kept.slice(-count).map(copy);
  }

  async listMessages(agentId: string, page: PageQuery): Promise<AgentMessage[]> {
    return pageOf(this.agents.get(agentId)?.messages ?? [], page).map(copy);
  }

  async countMessages(agentId: string): Promise<number> {
    return this.agents.get(agentId)?.messages.length ?? 0;
  }

  async countPassages(agentId: string): Promise<number> {
    return this.agents.get(agentId)?.passages.length ?? 0;
  }

  async searchMessages(
    agentId: string,
    query: string,
    options: MessageSearch,
  ): Promise<MessageHit[]> {
    return searchMessages(this.agents.get(agentId)?.messages ?? [], query, options);
  }

  async searchPassages(agentId: string, query: string, options: PassageSearch): Promise<Passage[]> {
    return searchPassages(this.agents.get(agentId)?.passages ?? [], query, options);
  }

  async insertPassages(agentId: string, passages: readonly Passage[]): Promise<void> {
    const parsed = copy(passages.map((p, i) => parseInput(Passage, p, ["passages", i])));
    const rows = this.agent(agentId);
    this.checkNewPassages(parsed);
    this.addPassages(rows, parsed);
    const changes = parsed.map((passage) => ({ kind: "passage" as const, id: passage.id }));
    this.history.edited(agentId, changes, rows.messages.length);
  }

  private checkNewPassages(passages: readonly Passage[]): void {
    const seen = new Set<string>();
    for (const passage of passages) {
      if (this.passageIds.has(passage.id) || seen.has(passage.id)) {
        throw new ConflictError(`passage '${passage.id}' already exists`);
      }
      seen.add(passage.id);
    }
  }

  private addPassages(rows: AgentRows, passages: readonly Passage[]): void {
    for (const passage of passages) this.passageIds.add(passage.id);
    rows.passages.push(...passages);
  }

  async listPassages(
    agentId: string,
    page: PageQuery,
    filter: PassageFilter = {},
  ): Promise<Passage[]> {
    const words = wordsOf(filter);
    const keep = (passage: Passage) =>
      !words || words.every((word) => passage.text.toLowerCase().includes(word));
    return pageOf(this.agents.get(agentId)?.passages ?? [], page, keep).map(copy);
  }

  async deletePassage(agentId: string, passageId: string): Promise<boolean> {
    const rows = this.agents.get(agentId);
    const index = rows?.passages.findIndex((passage) => passage.id === passageId) ?? -1;
    if (!rows || index < 0) return false;
    const [passage] = rows.passages.splice(index, 1) as [Passage];
    this.history.edited(agentId, [{ kind: "passage_deleted", passage }], rows.messages.length);
    this.passageIds.delete(passageId);
    return true;
  }

  async loadSession(agentId: string): Promise<SessionState | null> {
    const session = this.agents.get(agentId)?.session;
    return session ? copy(session) : null;
  }

  async interruptedSessions(): Promise<string[]> {
    return [...this.agents.entries()]
      .filter(([, rows]) => ["running", "awaiting_children"].includes(rows.session?.phase ?? ""))
      .map(([id]) => id)
      .sort();
  }

  async putRun(run: RunRecord): Promise<void> {
    const parsed = copy(parseInput(RunRecord, run, ["run"]));
    this.agent(parsed.agent_id);
    this.runs.checkKey(parsed);
    this.runs.set(parsed, this.messagesStored + 1);
  }

  async putChainRun(run: ChainRunRecord): Promise<void> {
    this.chainRuns.put(run);
  }

  async getChainRun(id: string): Promise<ChainRunRecord | null> {
    return this.chainRuns.get(id);
  }

  async listChainRuns(filter: ChainRunFilter, page: PageQuery): Promise<ChainRunRecord[]> {
    return this.chainRuns.list(filter, page);
  }

  async unfinishedChainRuns(): Promise<ChainRunRecord[]> {
    return this.chainRuns.unfinished();
  }

  async getStep(stepId: string): Promise<StepRecord | null> {
    return this.steps.get(stepId);
  }

  async setStepFeedback(id: string, feedback: StepFeedback, tags: readonly string[] | null) {
    return this.steps.setFeedback(id, feedback, tags);
  }

  async listSteps(filter: StepFilter, page: PageQuery): Promise<StepRecord[]> {
    return this.steps.list(filter, page, (id) => this.agents.get(id)?.record.project_id);
  }

  async listRunJournal(runId: string): Promise<JournalEntry[]> {
    return this.history.runJournal(runId);
  }

  async memoryHistory(agentId: string): Promise<MemoryVersion[]> {
    return this.history.memoryHistory(agentId);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const run = this.runs.get(runId);
    return run ? copy(run) : null;
  }

  async listRuns(filter: RunFilter, page: PageQuery): Promise<RunRecord[]> {
    const statuses = runStatuses(filter);
    const runs = this.runs
      .all()
      .filter(
        (run) =>
          this.agents.get(run.agent_id)?.record.project_id === filter.projectId &&
          (filter.agentId === undefined || run.agent_id === filter.agentId),
      );
    const keep = (run: RunRecord) => statuses === null || statuses.includes(run.status);
    return pageOf(runs, page, keep).map(copy);
  }

  /** Its agent's messages with its id from where it began, as SQLite reads them. */
  async listRunMessages(runId: string): Promise<AgentMessage[]> {
    const run = this.runs.get(runId);
    const from = this.runs.start(runId);
    const messages = (run && this.agents.get(run.agent_id)?.messages) || [];
    return messages
      .filter((m) => m.run_id === runId && (this.messageOrder.get(m.id) ?? 0) >= from)
      .map(copy);
  }

  async listChildren(parentId: string): Promise<AgentRecord[]> {
    return [...this.agents.values()]
      .map((rows) => rows.record)
      .filter((record) => record.parent_id === parentId)
      .map(copy);
  }

  async findRunByKey(agentId: string, key: string): Promise<RunRecord | null> {
    const run = this.runs.withKey(agentId, key);
    return run ? copy(run) : null;
  }

  async reconcileWakeUps(): Promise<number> {
    return this.timers.reconcile([...this.agents].map(([id, rows]) => [id, rows.session]));
  }

  async putTimer(timer: TimerRecord): Promise<void> {
    const parsed = copy(parseInput(TimerRecord, timer, ["timer"]));
    this.agent(parsed.agent_id);
    this.timers.put(parsed);
  }

  async clearTimer(agentId: string, kind: TimerRecord["kind"]): Promise<void> {
    this.timers.clear(agentId, kind);
  }

  async dueTimers(nowMs: number): Promise<TimerRecord[]> {
    return this.timers.due(nowMs);
  }

  async nextTimer(): Promise<TimerRecord | null> {
    return this.timers.next();
  }

  async close(): Promise<void> {}
}
