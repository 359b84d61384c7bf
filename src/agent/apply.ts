import { assert } from "../core/errors.js";
import type { ModelResponse } from "../llm/model.js";
import type { AgentMessage, StopReason } from "../records/messages.js";
import type { JournalEntry } from "../records/run-journal.js";
import type { PendingCall, SessionState } from "../records/session-state.js";
import type { ToolResult } from "../tools/tool.js";
import type { LoopConfig } from "./loop-config.js";
import { type MessageStamp, stampMessage, stepMessageId } from "./message-factory.js";
import { continuesTurn, endsTurn, missingBeforeExit } from "./tool-rules.js";

/** A step's effect: the next checkpoint and the messages to commit with it. */
export interface Applied {
  state: SessionState;
  messages: AgentMessage[];
  /** What the run journal records of it (for replay), committed with it. */
  journal?: JournalEntry[];
}

/** Records a model response: its reasoning and text, and each tool call as pending. */
export function applyModelResponse(
  state: SessionState,
  response: ModelResponse,
  step: { final: boolean; offered: string[] },
  stamp: MessageStamp & { stepId: string },
  config: LoopConfig,
): Applied {
  const caps = config.capabilities;
  const messages: AgentMessage[] = [];
  const at = (slot: string) => stepMessageId(stamp.stepId, slot);
  if (response.reasoning) {
    messages.push(
      stampMessage(stamp, at("r"), {
        message_type: "reasoning_message",
        reasoning: response.reasoning,
        ...(response.reasoningSignature !== undefined && {
          signature: response.reasoningSignature,
        }),
      }),
    );
  }
  const toolCalls = step.final ? [] : response.toolCalls;
  const text = response.text.trim();
  // A memgpt-style agent speaks through send_message; text beside its tool calls is its inner voice.
  const textIsReply = caps.reply_via === "text" || toolCalls.length === 0;
  if (text) {
    messages.push(
      textIsReply
        ? // A memgpt agent's text streamed as its inner voice (slot "t"); if it turns out to be
          // the reply, it keeps that id, so a client never receives the same text twice.
          stampMessage(stamp, at(caps.reply_via === "text" ? "a" : "t"), {
            message_type: "assistant_message",
            content: text,
          })
        : stampMessage(stamp, at("t"), { message_type: "reasoning_message", reasoning: text }),
    );
  }
  const pending: PendingCall[] = toolCalls.map((call, i) => {
    const tool_call = { name: call.name, arguments: call.arguments, tool_call_id: call.id };
    messages.push(
      stampMessage(stamp, at(`c${i}`), { message_type: "tool_call_message", tool_call }),
    );
    return {
      tool_call,
      status: "pending",
      child_agent_id: null,
      request_heartbeat: caps.heartbeats && requestsHeartbeat(call.arguments),
      denial_reason: null,
      approval_expires_at_ms: null,
      outcome: null,
    };
  });
  const usage = {
    prompt_tokens: state.usage.prompt_tokens + response.usage.inputTokens,
    completion_tokens: state.usage.completion_tokens + response.usage.outputTokens,
    step_count: state.usage.step_count + 1,
    ...added("queue_wait_ms", state.usage.queue_wait_ms, response.queueWaitMs),
    ...added(
      "cached_input_tokens",
      state.usage.cached_input_tokens,
      response.usage.cachedInputTokens,
    ),
    ...added(
      "cache_write_input_tokens",
      state.usage.cache_write_input_tokens,
      response.usage.cacheWriteInputTokens,
    ),
  };
  let next: SessionState = {
    ...state,
    iteration: state.iteration + 1,
    forced_final: state.forced_final || step.final,
    pending,
    offered: step.offered,
    after_tools: null,
    usage,
    models: answeredBy(state.models, response.model),
  };
  if (usage.prompt_tokens + usage.completion_tokens > caps.limits.max_tokens_per_turn) {
    return closePending({ state: next, messages }, "max_tokens_exceeded", stamp);
  }
  if (step.final) next = { ...next, stop_reason: "max_steps" };
  else if (pending.length === 0) {
    if (!text && !response.reasoning) next = { ...next, stop_reason: "no_tool_call" };
    else next = endOrRequire(next, "end_turn", config, messages, stamp);
  }
  return { state: next, messages };
}

/** Records a tool's result as its tool return; after the last call, decides what comes next. */
export function applyToolResult(
  state: SessionState,
  index: number,
  result: ToolResult,
  stamp: MessageStamp,
  config: LoopConfig,
  executed: boolean,
): Applied {
  const recorded = recordToolReturn(state, index, result, stamp, executed);
  let next = recorded.state;
  if (next.pending.every((p) => p.status === "done")) {
    next = { ...next, after_tools: afterTools(next, config) };
    if (next.after_tools === "end_turn") {
      next = endOrRequire(next, "end_turn", config, recorded.messages, stamp);
    }
  }
  return { state: next, messages: recorded.messages };
}

/** Marks call `index` done with its tool return message; counts it if it really ran. */
function recordToolReturn(
  state: SessionState,
  index: number,
  result: ToolResult,
  stamp: MessageStamp,
  executed: boolean,
): Applied {
  const call = state.pending[index];
  assert(call && call.status !== "done", `tool result for call ${index}, which is not open`);
  const name = call.tool_call.name;
  const message = stampMessage(stamp, stepMessageId(stamp.stepId ?? "step-x", `r${index}`), {
    message_type: "tool_return_message",
    name,
    tool_call_id: call.tool_call.tool_call_id,
    tool_return: result.output,
    status: result.status,
  });
  const outcome = outcomeOf(result);
  const pending = state.pending.map((p, i) =>
    i === index ? { ...p, status: "done" as const, outcome } : p,
  );
  const counted = executed
    ? {
        tool_calls: state.tool_calls + 1,
        counts: { ...state.counts, [name]: (state.counts[name] ?? 0) + 1 },
        last_tool: name,
      }
    : {};
  const pause_until_ms = result.effects?.pauseUntilMs ?? state.pause_until_ms;
  return { state: { ...state, ...counted, pending, pause_until_ms }, messages: [message] };
}

function outcomeOf(result: ToolResult): PendingCall["outcome"] {
  if (result.status === "error") return "error";
  if (result.effects?.pauseUntilMs !== undefined) return "pause";
  return result.effects?.reply !== undefined ? "reply" : "success";
}

/** What follows a model response's tool calls once they have all run. */
function afterTools(state: SessionState, config: LoopConfig): SessionState["after_tools"] {
  const { rules, capabilities } = config;
  const calls = state.pending;
  if (calls.some((call) => endsTurn(rules, call.tool_call.name))) return "tool_rule";
  if (calls.some((call) => call.outcome === "pause")) return "end_turn";
  if (calls.some((call) => continuesTurn(rules, call.tool_call.name))) return "continue";
  if (capabilities.heartbeats) {
    // A failed call gets a heartbeat so the model can repair it, as MemGPT does.
    const again = calls.some((call) => call.request_heartbeat || call.outcome === "error");
    return again ? "continue" : "end_turn";
  }
  return calls.some((call) => call.outcome === "reply") ? "end_turn" : "continue";
}

/** Ends the turn, unless a required_before_exit tool has not run: then tells the model so. */
function endOrRequire(
  state: SessionState,
  reason: StopReason,
  config: LoopConfig,
  messages: AgentMessage[],
  stamp: MessageStamp,
): SessionState {
  const missing = missingBeforeExit(config.rules, state.counts);
  const canContinue = state.iteration < config.capabilities.limits.max_iterations;
  if (missing.length === 0 || !canContinue) {
    return state.pending.length > 0
      ? { ...state, after_tools: reason }
      : { ...state, stop_reason: reason };
  }
  messages.push(
    stampMessage(stamp, stepMessageId(stamp.stepId ?? "step-x", "x"), {
      message_type: "system_message",
      content: `Before finishing you must call: ${missing.join(", ")}.`,
    }),
  );
  return { ...state, after_tools: "continue" };
}

/** Stops the turn, giving every open call an error return so the history stays well-formed. */
export function closePending(applied: Applied, reason: StopReason, stamp: MessageStamp): Applied {
  let { state } = applied;
  const messages = [...applied.messages];
  const result: ToolResult = { status: "error", output: `not run: the turn stopped (${reason})` };
  state.pending.forEach((call, index) => {
    if (call.status === "done") return;
    const closed = recordToolReturn(state, index, result, stamp, false);
    state = closed.state;
    messages.push(...closed.messages);
  });
  return { state: { ...state, after_tools: null, stop_reason: reason }, messages };
}

function requestsHeartbeat(args: string): boolean {
  try {
    const parsed: unknown = JSON.parse(args);
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      Reflect.get(parsed, "request_heartbeat") === true
    );
  } catch {
    return false;
  }
}

/** The turn's answering models with `model` added, if it is new. */
function answeredBy(models: readonly string[], model: string | undefined): string[] {
  return model === undefined || models.includes(model) ? [...models] : [...models, model];
}

/**
 * An optional usage counter with this step's share added (time queued behind rate limits,
 * cached prompt tokens); absent while it is zero, so runs that never met it stay as they were.
 */
function added<K extends string>(key: K, sofar: number | undefined, step: number | undefined) {
  const total = (sofar ?? 0) + (step ?? 0);
  return total > 0 ? ({ [key]: total } as Record<K, number>) : {};
}
