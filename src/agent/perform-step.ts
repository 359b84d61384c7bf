import { AssertionError, assert } from "../core/errors.js";
import type { ModelResponse, ReasoningRequest } from "../llm/model.js";
import { ModelError } from "../llm/model-error.js";
import { withStructuredOutput } from "../llm/structured-output.js";
import { loadDirectories } from "../memory/directories.js";
import type { RecordedResponse } from "../records/run-journal.js";
import type { SessionState } from "../records/session-state.js";
import { checkClientArguments, clientToolDeclaration } from "../tools/client-tools.js";
import type { ToolDeclaration } from "../tools/tool-declaration.js";
import type { ReasoningSettings } from "../types/agent-type.js";
import { type Applied, applyModelResponse, applyToolResult, closePending } from "./apply.js";
import { applyApprovalRequest } from "./approvals.js";
import { applySpawned } from "./children.js";
import { compactHistory } from "./compaction.js";
import { contextPreface, historyInScope } from "./context-scope.js";
import type { Step } from "./decide.js";
import { checkCall, executeTool } from "./execute-tool.js";
import { afterReset } from "./history-window.js";
import type { LoopConfig } from "./loop-config.js";
import type { MessageStamp } from "./message-factory.js";
import type { ModelCallSeen } from "./observer.js";
import { buildRequest } from "./prompt.js";
import type { TurnContext } from "./run-turn.js";
import { newStepRecord, type Performed } from "./step-log.js";
import { streamDeltas } from "./stream-deltas.js";
import { allowedByRules, mustCallTool } from "./tool-rules.js";
import { applyVerifierStarted, applyVerifierUnavailable, verifierTask } from "./verify.js";

export const DEFAULT_HISTORY_LIMIT = 200;
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** A step the runner performs (finishing and waiting are not steps it performs). */
export type PerformedStep = Exclude<Step, { kind: "finish" } | { kind: "await_children" }>;

/**
 * Does one step's I/O and returns what to commit, with the input it got from outside (the
 * runner journals it with `journaled`). Everything it decides, it leaves to apply.
 */
export async function performStep(
  ctx: TurnContext,
  state: SessionState,
  step: PerformedStep,
): Promise<Performed> {
  const { config } = ctx.agent;
  const stamp: MessageStamp = {
    runId: state.run_id,
    stepId: state.step_id,
    nowMs: ctx.deps.clock.now(),
  };
  switch (step.kind) {
    case "call_model":
      return callModel(ctx, state, step.final);
    case "request_approval":
      return applyApprovalRequest(state, step.index, stamp, config);
    case "ask_client":
      return askClient(state, step.index, stamp, config);
    case "reject_tool":
      return applyToolResult(
        state,
        step.index,
        { status: "error", output: step.reason },
        stamp,
        config,
        false,
      );
    case "spawn_child":
      return spawnChild(ctx, state, step.index, stamp);
    case "verify":
      return startVerifier(ctx, state);
    case "run_tool": {
      const call = state.pending[step.index];
      if (!call) throw new Error(`no tool call ${step.index}`);
      const startedAtMs = ctx.deps.clock.now();
      const { result, executed } = await executeTool(
        call,
        state,
        config.capabilities,
        ctx.deps.tools,
        {
          agentId: ctx.agent.id,
          workspace: ctx.deps.workspace,
          memory: ctx.memory,
          clock: ctx.deps.clock,
          // A provider may reuse a call id in a later response of the run; the step's id is not.
          idempotencyKey: `${state.run_id}:${state.step_id}:${call.tool_call.tool_call_id}`,
          runId: state.run_id,
        },
      );
      const applied = applyToolResult(state, step.index, result, stamp, config, executed);
      const input = { type: "tool" as const, result: { ...result, executed } };
      if (!executed) return { ...applied, input };
      const endedAtMs = ctx.deps.clock.now();
      const toolCallId = call.tool_call.tool_call_id;
      ctx.deps.observer?.toolCalled({
        agentId: ctx.agent.id,
        runId: state.run_id,
        stepId: state.step_id,
        tool: call.tool_call.name,
        toolCallId,
        startedAtMs,
        endedAtMs,
        outcome: result.status,
      });
      return { ...applied, input, toolRun: { toolCallId, durationMs: endedAtMs - startedAtMs } };
    }
  }
}

/**
 * Stops the turn for the caller to run a client tool, as for an approval. A call the model was
 * not offered now, or whose arguments do not fit the tool's schema, is an error the model reads
 * instead: the caller is asked only for calls it can run.
 */
export function askClient(
  state: SessionState,
  index: number,
  stamp: MessageStamp,
  config: LoopConfig,
): Applied {
  const call = state.pending[index];
  assert(call !== undefined, `no client tool call ${index}`);
  const { name, arguments: args } = call.tool_call;
  const tool = state.client_tools.find((client) => client.name === name);
  assert(tool !== undefined, `'${name}' is not a client tool of this run`);
  const error = state.offered.includes(name)
    ? checkClientArguments(tool, args)
    : `tool '${name}' may not be called now (tool rules)`;
  if (error === null) return applyApprovalRequest(state, index, stamp, config);
  return applyToolResult(state, index, { status: "error", output: error }, stamp, config, false);
}

/** Starts a sub-agent for a spawn call, which then waits for it; a refusal is a tool error. */
async function spawnChild(
  ctx: TurnContext,
  state: SessionState,
  index: number,
  stamp: MessageStamp,
): Promise<Performed> {
  const { config } = ctx.agent;
  const call = state.pending[index];
  assert(call !== undefined && state.run_id !== null, `no spawn call ${index} in a run`);
  const refuse = (error: string): Performed => ({
    ...applyToolResult(state, index, { status: "error", output: error }, stamp, config, false),
    input: { type: "refused", error },
  });
  const checked = checkCall(call, state, config.capabilities, ctx.deps.tools);
  if (!checked.ok) return refuse(checked.error);
  if (!ctx.deps.children) return refuse("sub-agents cannot be spawned here");
  const args = checked.args as { agent_type: string; prompt: string };
  const spawned = await ctx.deps.children.spawn({
    runId: state.run_id,
    toolCallId: call.tool_call.tool_call_id,
    agentType: args.agent_type,
    prompt: args.prompt,
  });
  if (!spawned.ok) return refuse(spawned.error);
  const input = { type: "spawned" as const, child_agent_id: spawned.childId };
  return { ...applySpawned(state, index, spawned.childId), input };
}

/** Gives the run's answer to a verifier sub-agent; the turn then waits for its verdict. */
async function startVerifier(ctx: TurnContext, state: SessionState): Promise<Performed> {
  const gate = ctx.agent.config.verify;
  assert(gate !== null && state.run_id !== null, "a verifier step without a gate or a run");
  const unavailable = (error: string): Performed => ({
    ...applyVerifierUnavailable(state, error),
    input: { type: "refused", error },
  });
  if (!ctx.deps.children) return unavailable("sub-agents cannot run here");
  const ofRun = (await recentHistory(ctx, false, state.conversation_id)).filter(
    (m) => m.run_id === state.run_id,
  );
  const task = verifierTask(ofRun);
  const round = (state.verification?.rounds ?? 0) + 1;
  const spawned = await ctx.deps.children.spawn({
    runId: state.run_id,
    toolCallId: `verify-${round}`,
    agentType: gate.with,
    prompt: task,
  });
  if (!spawned.ok) return unavailable(spawned.error);
  const input = { type: "verifier" as const, child_agent_id: spawned.childId, task };
  return { ...applyVerifierStarted(state, spawned.childId, task), input };
}

/**
 * The declarations of the tools this model call may offer: capabilities, then tool rules; then
 * the run's client tools.
 */
export function toolsForCall(
  config: LoopConfig,
  tools: ReadonlyMap<string, { readonly declaration: ToolDeclaration }>,
  state: SessionState,
  final: boolean,
): ToolDeclaration[] {
  if (final) return [];
  const offered = config.capabilities.offered.map((grant) => grant.name);
  const ruleState = { iteration: state.iteration, lastTool: state.last_tool, counts: state.counts };
  const own = allowedByRules(config.rules, offered, ruleState).flatMap((name) => {
    const tool = tools.get(name);
    return tool ? [tool.declaration] : [];
  });
  // The run's client tools come after the agent's own, as in Letta; tool rules name only those.
  return [...own, ...state.client_tools.map(clientToolDeclaration)];
}

async function callModel(
  ctx: TurnContext,
  state: SessionState,
  final: boolean,
): Promise<Performed> {
  const { deps, agent } = ctx;
  const stepId = deps.ids.next("step");
  let withStep: SessionState = { ...state, step_id: stepId };
  const stamp = { runId: state.run_id, stepId, nowMs: deps.clock.now() };
  const tools = toolsForCall(agent.config, deps.tools, state, final);
  const caps = agent.config.capabilities;
  const forced = toolChoiceFor(agent.config, state) === "required";
  const recent = await recentHistory(ctx, true, state.conversation_id);
  const directories = await loadDirectories(deps.store.folders, agent.id, deps.model.contextWindow);
  const build = (current: SessionState) =>
    buildRequest({
      systemPrompt: agent.systemPrompt,
      blocks: ctx.memory.blocks(),
      directories,
      capabilities: caps,
      history: historyInScope(recent, current, caps),
      preface: contextPreface(current),
      tools,
      toolChoice: forced ? "required" : "auto",
      contextWindow: deps.model.contextWindow,
      maxOutputTokens: deps.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    });
  let built = build(withStep);
  if (built.ok && built.evicted > 0 && caps.memory.depth !== "stateless") {
    // The history outgrew the window: fold its oldest part into the summary, committed with
    // this step; if that fails, the turn goes on with the previous summary and what fits.
    const compactDeps = { model: deps.model, agentId: agent.id, ...eventsAndSignal(deps) };
    const scoped = historyInScope(recent, withStep, caps);
    withStep = await compactHistory(compactDeps, withStep, scoped, built.budget, stepId);
    built = build(withStep);
  }
  const offer = { step_id: stepId, offered: tools.map((tool) => tool.name) };
  const offered = { ...offer, tool_choice: forced ? ("required" as const) : ("auto" as const) };
  if (!built.ok) {
    const reason = "context_window_overflow_in_system_prompt";
    const closed = closePending({ state: withStep, messages: [] }, reason, stamp);
    return { ...closed, input: { type: "model_failed", ...offered, stop_reason: reason } };
  }
  const request = {
    ...built.request,
    caller: agent.id,
    ...(deps.signal && { signal: deps.signal }),
    ...(caps.reasoning && { reasoning: reasoningRequest(caps.reasoning) }),
    ...(caps.structured_output && { output: caps.structured_output }),
  };
  const startedAtMs = deps.clock.now();
  let response: ModelResponse;
  try {
    // A reply wanted as JSON is validated (and repaired once) whatever the provider does.
    const caller = request.output ? withStructuredOutput(deps.model) : deps.model;
    response = await caller.generate(request, streamDeltas(ctx, stepId));
  } catch (error) {
    const failed = modelFailed(ctx, withStep, error, stamp);
    const why = failed.state.stop_reason === "cancelled" ? "cancelled" : errorKind(error);
    const seen = modelCallSeen(ctx, withStep, startedAtMs, null, {
      kind: why,
      message: error instanceof Error ? error.message : String(error),
    });
    const reason = failed.state.stop_reason ?? "llm_api_error";
    const input = { type: "model_failed" as const, ...offered, stop_reason: reason };
    return { ...failed, input, step: newStepRecord(seen, []) };
  }
  const model = response.model ?? deps.model.handle;
  for (const { handle, kind, message } of response.fallbacks ?? []) {
    deps.onEvent?.({
      type: "model_fallback",
      step_id: stepId,
      from: handle,
      to: model,
      kind,
      message,
    });
  }
  if (response.queueWaitMs !== undefined && response.queueWaitMs > 0) {
    deps.onEvent?.({ type: "model_queued", step_id: stepId, model, wait_ms: response.queueWaitMs });
  }
  response = { ...response, model };
  const seen = modelCallSeen(ctx, withStep, startedAtMs, response, null);
  const step = { final, offered: offered.offered };
  const applied = applyModelResponse(withStep, response, step, stamp, agent.config);
  const input = { type: "model" as const, ...offered, response: recorded(response) };
  return { ...applied, input, step: newStepRecord(seen, final ? [] : response.toolCalls) };
}

/** Whether the model call must call a tool: a memgpt-style agent always, or by tool rule. */
export function toolChoiceFor(config: LoopConfig, state: SessionState): "auto" | "required" {
  const ruleState = { iteration: state.iteration, lastTool: state.last_tool, counts: state.counts };
  const forced =
    config.capabilities.reply_via === "send_message" || mustCallTool(config.rules, ruleState);
  return forced ? "required" : "auto";
}

/** The step's effect with its run journal entry: the step and what it was given. */
export function journaled(performed: Performed, step: PerformedStep): Performed {
  const { input = { type: "none" }, ...applied } = performed;
  return { ...applied, journal: [...(applied.journal ?? []), { kind: "step", step, input }] };
}

/** What the journal keeps of a response: what apply reads, without the fallbacks' story. */
function recorded(response: ModelResponse): RecordedResponse {
  const { fallbacks: _fallbacks, ...kept } = response;
  return kept;
}

function eventsAndSignal(deps: TurnContext["deps"]) {
  return {
    ...(deps.onEvent && { onEvent: deps.onEvent }),
    ...(deps.signal && { signal: deps.signal }),
  };
}

/** A model call as the observer and the step record see it; reports it to the observer. */
function modelCallSeen(
  ctx: TurnContext,
  state: SessionState,
  startedAtMs: number,
  response: ModelResponse | null,
  error: ModelCallSeen["error"],
): ModelCallSeen {
  const usage = response?.usage;
  const seen: ModelCallSeen = {
    agentId: ctx.agent.id,
    runId: state.run_id,
    stepId: state.step_id ?? "",
    model: response?.model ?? ctx.deps.model.handle,
    fallbacks: (response?.fallbacks ?? []).map((fallback) => fallback.handle),
    startedAtMs,
    endedAtMs: ctx.deps.clock.now(),
    queueWaitMs: response?.queueWaitMs ?? 0,
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    cacheWriteInputTokens: usage?.cacheWriteInputTokens ?? 0,
    finishReason: response?.finishReason ?? null,
    error,
  };
  ctx.deps.observer?.modelCalled(seen);
  return seen;
}

const errorKind = (error: unknown) => (error instanceof ModelError ? error.kind : "error");

/**
 * The newest messages, from the activation's window when it has one, else from the store. For
 * a model call (`prompt`), the window's start moves a page at a time, so that the request's
 * prefix stays cacheable (see HistoryWindow.promptWindow).
 */
async function recentHistory(ctx: TurnContext, prompt = false, conversation: string | null = null) {
  const limit = ctx.deps.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  // The window holds the default conversation only; another conversation reads the store.
  const window = conversation === null ? ctx.deps.history : undefined;
  const held = window && (prompt ? window.promptWindow(limit) : window.recent(limit));
  const recent = held ?? (await ctx.deps.store.recentMessages(ctx.agent.id, limit, conversation));
  return afterReset(recent, ctx.agent.contextAfter);
}

function modelFailed(
  ctx: TurnContext,
  state: SessionState,
  error: unknown,
  stamp: MessageStamp & { stepId: string },
): Applied {
  // A broken invariant is a bug to surface, never a model failure to report.
  if (error instanceof AssertionError || !(error instanceof Error)) throw error;
  const cancelled = ctx.deps.signal?.aborted === true;
  const retryable = error instanceof ModelError && error.retryable;
  if (!cancelled) {
    const kind = error instanceof ModelError ? { kind: error.kind } : {};
    ctx.deps.onEvent?.({ type: "error", message: error.message, retryable, ...kind });
  }
  const reason = cancelled
    ? "cancelled"
    : error instanceof ModelError && error.kind === "invalid_response"
      ? "invalid_llm_response"
      : "llm_api_error";
  return closePending({ state, messages: [] }, reason, stamp);
}

/** A type's reasoning settings as the model boundary takes them. */
function reasoningRequest(settings: ReasoningSettings): ReasoningRequest {
  return {
    enabled: settings.enabled,
    ...(settings.budget_tokens !== null && { budgetTokens: settings.budget_tokens }),
    ...(settings.effort !== null && { effort: settings.effort }),
  };
}
