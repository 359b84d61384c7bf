import { awaitedChildren } from "../agent/children.js";
import { finalAnswer } from "../agent/spawn-tools.js";
import { VERDICT } from "../agent/verify.js";
import { ConflictError } from "../core/errors.js";
import type { AgentRecord, RunRecord } from "../records/agent-record.js";
import type { AgentMessage } from "../records/messages.js";
import type { SessionState } from "../records/session-state.js";
import type { Store } from "../storage/store.js";
import type { ToolResult } from "../tools/tool.js";
import { spawnKey } from "./child-spawner.js";
import type { ChildApproval } from "./engine.js";

/** A child a parent waits for: the call's index, the child, its task and the task's key. */
export interface AwaitedChild {
  index: number;
  childId: string;
  prompt: string;
  key: string;
}

/** The children the session waits for (a verifier too), with the task each was given. */
export function childTasks(state: SessionState): AwaitedChild[] {
  const v = state.verification;
  const verifier =
    v && v.passed === null && v.verifier_agent_id && state.run_id
      ? [
          {
            index: VERDICT,
            childId: v.verifier_agent_id,
            prompt: v.verifier_task ?? "",
            key: spawnKey(state.run_id, `verify-${v.rounds}`),
          },
        ]
      : [];
  return verifier.concat(
    awaitedChildren(state).flatMap(({ index, childId }) => {
      const call = state.pending[index];
      if (!call || state.run_id === null) return [];
      let prompt = "";
      try {
        prompt = String(
          (JSON.parse(call.tool_call.arguments) as { prompt?: unknown }).prompt ?? "",
        );
      } catch {
        // The call was checked when it spawned the child; an unreadable one gets an empty task.
      }
      return [{ index, childId, prompt, key: spawnKey(state.run_id, call.tool_call.tool_call_id) }];
    }),
  );
}

/** What the children have come to: answers of ended runs, tasks not yet delivered, runs still going. */
export async function childProgress(
  store: Store,
  state: SessionState,
): Promise<{
  ready: { index: number; result: ToolResult }[];
  undelivered: AwaitedChild[];
  running: AwaitedChild[];
}> {
  const ready: { index: number; result: ToolResult }[] = [];
  const undelivered: AwaitedChild[] = [];
  const running: AwaitedChild[] = [];
  for (const child of childTasks(state)) {
    const [record, run] = await Promise.all([
      store.getAgent(child.childId),
      store.findRunByKey(child.childId, child.key),
    ]);
    if (!record) {
      // Deleted while its parent waited: the parent hears so instead of waiting for ever.
      const output = `sub-agent ${child.childId} was deleted before it answered`;
      ready.push({ index: child.index, result: { status: "error", output } });
    } else if (!run) undelivered.push(child);
    else if (run.status === "running") running.push(child);
    else {
      const messages = await store.listRunMessages(run.id);
      const result =
        child.index === VERDICT
          ? {
              status: succeeded(run) ? ("success" as const) : ("error" as const),
              output: finalAnswer(messages),
            }
          : childResult(record.agent_type, child.childId, run, messages);
      ready.push({ index: child.index, result });
    }
  }
  return { ready, undelivered, running };
}

/** A child's answer as its parent's tool result: its final words, and how its run ended. */
export function childResult(
  type: string,
  childId: string,
  run: RunRecord,
  messages: readonly AgentMessage[],
): ToolResult {
  const head = `${type} (${childId}) stopped with ${run.stop_reason ?? run.status}`;
  const output = `${head}:\n${finalAnswer(messages)}`;
  return succeeded(run) ? { status: "success", output } : { status: "error", output };
}

const succeeded = (run: RunRecord) => run.status === "completed" && run.stop_reason === "end_turn";

/**
 * The approvals waiting anywhere below an agent that waits for its children: a child's own,
 * and its children's, down the tree. Read from committed state, never from live activations.
 */
export async function approvalsBelow(store: Store, agentId: string): Promise<ChildApproval[]> {
  const state = await store.loadSession(agentId);
  if (state?.phase !== "awaiting_children") return [];
  const found: ChildApproval[] = [];
  for (const { childId } of childTasks(state)) found.push(...(await approvalsOf(store, childId)));
  return found;
}

async function approvalsOf(store: Store, agentId: string): Promise<ChildApproval[]> {
  const state = await store.loadSession(agentId);
  if (state?.phase === "awaiting_children") return approvalsBelow(store, agentId);
  if (state?.phase !== "awaiting_approval" || state.run_id === null) return [];
  const waiting = new Set(
    state.pending
      .filter((c) => c.status === "awaiting_approval")
      .map((c) => c.tool_call.tool_call_id),
  );
  const messages = await store.listRunMessages(state.run_id);
  return messages.flatMap((message) =>
    message.message_type === "approval_request_message" &&
    waiting.has(message.tool_call.tool_call_id)
      ? [{ agentId, message }]
      : [],
  );
}

/**
 * Whether a sub-agent still works on a task its parent no longer waits for: the parent's run
 * was cancelled, and a crash came before the child was. A run a user started is never orphaned.
 */
export async function orphaned(store: Store, child: { record: AgentRecord; state: SessionState }) {
  const { record, state } = child;
  const busy = ["running", "awaiting_children", "awaiting_approval"].includes(state.phase);
  if (!record.parent_id || !busy || !state.run_id) return false;
  const run = await store.getRun(state.run_id);
  if (!run?.idempotency_key?.startsWith("spawn:")) return false;
  const parent = await store.loadSession(record.parent_id);
  const waiting = parent ? childTasks(parent).some((task) => task.childId === record.id) : false;
  return !waiting;
}

/** A parent that no longer waits (cancelled, deleted): its child's late task is refused. */
export class UnwantedTaskError extends ConflictError {
  override readonly code = "TASK_NOT_WANTED";
}

/**
 * Refuses a sub-agent's task (its otid is a spawn key) that arrives after its parent stopped
 * waiting for it: a delivery retried or queued behind a cancel must not start an orphan run.
 */
export async function refuseUnwantedTask(
  store: Store,
  record: AgentRecord,
  otid: string,
): Promise<void> {
  if (!record.parent_id || !otid.startsWith("spawn:")) return;
  const parent = await store.loadSession(record.parent_id);
  const wanted = parent ? childTasks(parent).some((task) => task.key === otid) : false;
  if (!wanted)
    throw new UnwantedTaskError(`the parent of ${record.id} no longer waits for this task`);
}
