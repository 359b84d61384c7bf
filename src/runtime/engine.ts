import type { CompactRequest, CompactResult } from "../agent/compact-now.js";
import type { BlockEdit } from "../memory/block-edit.js";
import type { AgentChange } from "../records/agent-change.js";
import type { AgentRecord, RunRecord } from "../records/agent-record.js";
import type { ClientTool } from "../records/client-tool.js";
import type { CoreBlock } from "../records/memory-records.js";
import type { AgentMessage, ApprovalDecision, StopReason } from "../records/messages.js";
import type { SessionState, Usage } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import type { AgentEventListener } from "./agent-events.js";

/** A user message for an agent. A message whose `otid` was seen before is not run again. */
export interface MessageInput {
  content: string;
  otid?: string | null;
}

export interface SendOptions {
  /** The id the new run gets, so a caller can follow its events before it starts. */
  runId?: string;
  /** Fewer model calls than the agent's limit, for this run only (Letta's `max_steps`). */
  maxSteps?: number;
  /**
   * Tools the caller runs itself, offered for this run only (Letta's `client_tools`), already
   * checked against the agent's own. With an approval, they replace the run's.
   */
  clientTools?: readonly ClientTool[];
  /**
   * The conversation a new run belongs to (decision 026): its messages carry this id and its
   * model calls see that conversation's history; absent or null, the agent's default one.
   */
  conversationId?: string | null;
}

/** An approval a sub-agent (or its own sub-agent) waits for, surfaced to the parent's caller. */
export interface ChildApproval {
  agentId: string;
  message: Extract<AgentMessage, { message_type: "approval_request_message" }>;
}

/**
 * What a run came to when it stopped for its caller: it ended, or it waits for an approval (its
 * own, or a sub-agent's in `childApprovals`). `duplicate` marks a retried message answered from
 * the run it started the first time.
 */
export interface RunOutcome {
  runId: string | null;
  duplicate: boolean;
  /** What the run produced so far, in order (the input message included). */
  messages: AgentMessage[];
  stopReason: StopReason;
  usage: Usage;
  childApprovals: ChildApproval[];
  /** The verifier gate's outcome, for a type with `verify`. */
  verification: RunRecord["verification"];
}

export interface ResumeFailure {
  agentId: string;
  error: unknown;
}

/**
 * The one interface services, the simulation and the server wiring use to drive agents. Every
 * operation names what it does; none runs a caller's code inside an agent's activation, so an
 * engine whose agents live elsewhere (Restate virtual objects) implements it as well as the
 * embedded one. Each agent runs one operation at a time, in the order they arrive.
 */
export interface Engine {
  /** Starts timers and resumes what a crash interrupted; reports agents that could not resume. */
  start(): Promise<ResumeFailure[]>;
  /** Lets queued work finish, then stops. */
  shutdown(): Promise<void>;

  /** Runs a user message; resolves when the run ends or stops for an approval. */
  send(agentId: string, input: MessageInput, options?: SendOptions): Promise<RunOutcome>;
  /** Answers approvals the agent (or a sub-agent it waits for) asked for; the run goes on. */
  approve(
    agentId: string,
    decisions: readonly ApprovalDecision[],
    options?: SendOptions,
  ): Promise<RunOutcome>;
  /** Carries the agent's session on from its checkpoint. */
  resume(agentId: string): Promise<RunOutcome>;
  /** Cancels the agent's run in progress and its sub-agents' runs; false if nothing ran. */
  cancel(agentId: string): Promise<boolean>;
  /**
   * Folds the older messages of one of the agent's conversations into its summary now, between
   * its runs (Letta's `summarize` and conversation `compact`); a conflict while a run is in
   * progress or waits.
   */
  compact(agentId: string, request: CompactRequest): Promise<CompactResult>;
  /** Resolves when run `runId` of the agent stops for its caller (at once if it has). */
  awaitRun(agentId: string, runId: string): Promise<RunOutcome>;

  /** The agent's session checkpoint, after any interrupted turn finished. */
  session(agentId: string): Promise<SessionState>;
  /**
   * Ends the agent's (idle) session `sessionId` and begins the next; a `learning` agent writes
   * what the session taught it to archival memory. Returns the new session's checkpoint.
   */
  endSession(agentId: string, sessionId: string): Promise<SessionState>;
  /** Hands a session to another (idle) agent. */
  transferSession(sourceId: string, sessionId: string, targetId: string): Promise<SessionState>;

  /** Changes the agent's record between its turns; the next turn uses the new record. */
  updateAgent(agentId: string, change: AgentChange): Promise<AgentRecord>;
  /** Edits the agent's core blocks between its turns (a turn commits whole blocks). */
  editBlocks(agentId: string, edit: BlockEdit): Promise<CoreBlock[]>;
  /**
   * Runs one of the agent's tools now, between its turns, under its type's ceiling, rules and
   * approval policy, in its workspace (`agent/direct-tool-run.ts`); commits nothing.
   */
  runTool(agentId: string, name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /**
   * Stops what the agent does (its sub-agents' runs too) and deletes it with everything it has;
   * a parent waiting for it is told. False if there was no such agent.
   */
  deleteAgent(agentId: string): Promise<boolean>;

  /** Every event of the agent as it happens; returns the unsubscribe function. */
  subscribe(agentId: string, listener: AgentEventListener): () => void;
}
