import { runToolDirectly } from "../agent/direct-tool-run.js";
import {
  resumeSession,
  sendUserMessage,
  type TurnResult,
  wakeFromPause,
} from "../agent/run-turn.js";
import { NotFoundError } from "../core/errors.js";
import { applyBlockEdit, type BlockEdit } from "../memory/block-edit.js";
import { type AgentChange, applyAgentChange } from "../records/agent-change.js";
import type { AgentRecord } from "../records/agent-record.js";
import type { CoreBlock } from "../records/memory-records.js";
import type { Store } from "../storage/store.js";
import type { ToolResult } from "../tools/tool.js";
import { type Activation, reloadActivation } from "./activation.js";
import type { AgentEvents } from "./agent-events.js";
import type { MessageInput, RunOutcome, SendOptions } from "./engine.js";
import { refuseWhileApprovalPending, storedOutcome, withMaxSteps } from "./outcomes.js";
import type { Job, Settled, SubAgentDriver } from "./sub-agent-driver.js";
import { refuseUnwantedTask } from "./sub-agents.js";
import type { EngineOptions, Turns } from "./turns.js";

/**
 * The jobs an engine runs in an agent's mailbox, as functions of its parts (the engine keeps
 * the mailboxes and what goes around them).
 */
export interface JobParts {
  readonly options: EngineOptions;
  readonly turns: Turns;
  readonly family: SubAgentDriver;
  readonly events: AgentEvents;
}

/** What sending a message came to in the agent's mailbox. */
export type SendDone =
  | Settled
  | { kind: "duplicate"; runId: string }
  | { kind: "queued"; runId: string; wake: Promise<unknown> };

/**
 * A user message in the agent's mailbox: answered from its first run if its otid was seen,
 * queued behind a run that sleeps for its children, refused while an approval waits, else run.
 */
export async function sendJob(
  parts: JobParts,
  activation: Activation,
  input: MessageInput,
  options: SendOptions,
  wait: boolean,
): Promise<SendDone> {
  const { turns, family, events } = parts;
  const { store } = parts.options;
  const agentId = activation.record.id;
  await turns.finishInterrupted(activation);
  if (input.otid) {
    const seen = await store.findRunByKey(agentId, input.otid);
    if (seen) return { kind: "duplicate", runId: seen.id };
    await refuseUnwantedTask(store, activation.record, input.otid);
  }
  // A sleeping run's children are (re)driven first: after a restart nothing else may have.
  if (activation.state.phase === "awaiting_children") {
    await family.collect(activation, false, true);
  }
  const { state } = activation;
  // Only a waiting agent needs the store; an idle one starts at once (the common case).
  if (state.phase !== "idle") await refuseWhileApprovalPending(store, agentId, state);
  if (state.phase === "awaiting_children" && state.run_id) {
    // The run in progress sleeps until its children end: this message queues behind it.
    const runId = state.run_id;
    const wake = wait ? events.nextStop(agentId, runId) : Promise.resolve();
    return { kind: "queued", runId, wake };
  }
  const turn = withMaxSteps(activation.agent, options.maxSteps);
  const message = {
    ...input,
    ...(options.runId ? { runId: options.runId } : {}),
    ...(options.clientTools ? { clientTools: options.clientTools } : {}),
    ...(options.conversationId ? { conversationId: options.conversationId } : {}),
  };
  const result = await turns.run(activation, (deps) =>
    sendUserMessage(turn, activation.state, message, deps),
  );
  return family.settle(activation, result, wait);
}

/** The outcome of a job that settled: at once if it stopped, else once its run stops. */
export async function settledOutcome(
  store: Store,
  agentId: string,
  settled: Settled,
): Promise<RunOutcome> {
  if (settled.kind === "stopped") return settled.outcome;
  await settled.wake;
  return storedOutcome(store, agentId, settled.runId);
}

/** What a send came to, as data (see Job). */
export function jobOfSend(done: SendDone): Job {
  if (done.kind === "stopped" || done.kind === "duplicate") return done;
  return { kind: done.kind, runId: done.runId };
}

/** Changes the agent's record (conditionally, see AgentChange) and reloads what it shapes. */
export async function updateAgentJob(
  parts: JobParts,
  activation: Activation,
  change: AgentChange,
): Promise<AgentRecord> {
  const { options } = parts;
  await parts.turns.ensureFresh(activation);
  const agentId = activation.record.id;
  const record = await options.store.getAgent(agentId);
  if (!record) throw new NotFoundError("agent", agentId);
  const updated = applyAgentChange(record, change, options.clock.now());
  await options.store.updateAgent(updated);
  await reloadActivation(activation, options);
  return updated;
}

/** Edits the agent's core blocks between its turns. */
export async function editBlocksJob(
  parts: JobParts,
  activation: Activation,
  edit: BlockEdit,
): Promise<CoreBlock[]> {
  await parts.turns.ensureFresh(activation);
  const { store } = parts.options;
  const agentId = activation.record.id;
  const write = applyBlockEdit(await store.loadBlocks(agentId), edit);
  if ("put" in write) await store.putBlock(agentId, write.put);
  else await store.detachBlock(agentId, write.delete);
  return store.loadBlocks(agentId);
}

/** Runs one of the agent's tools now, between its turns; commits nothing. */
export async function runToolJob(
  parts: JobParts,
  activation: Activation,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  await parts.turns.ensureFresh(activation);
  const { store, clock, ids } = parts.options;
  const deps = { tools: activation.tools, store, clock, ids, workspace: activation.workspace };
  return runToolDirectly(activation.agent, activation.state, deps, name, args);
}

/** A timer is due: a paused session wakes; an approval's expiry or a cut-off turn resumes. */
export async function timerJob(parts: JobParts, activation: Activation): Promise<void> {
  const { turns, family, options } = parts;
  await turns.ensureFresh(activation);
  const { state } = activation;
  const due = (at: number | null) => at !== null && at <= options.clock.now();
  let result: TurnResult | null = null;
  if (state.phase === "paused" && due(state.pause_until_ms)) {
    result = await turns.run(activation, (deps) => wakeFromPause(activation.agent, state, deps));
  } else if (state.phase === "awaiting_approval" || state.phase === "running") {
    result = await turns.run(activation, (deps) => resumeSession(activation.agent, state, deps));
  }
  if (result) family.settle(activation, result, false);
}
