import type { Clock } from "../../core/clock.js";
import { seededRandom } from "../../core/random.js";
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from "../model.js";
import { ModelError, type ModelErrorKind } from "../model-error.js";
import { demoReply } from "./demo-script.js";

/** One scripted model response: text, reasoning and tool calls with their arguments. */
export interface SimReply {
  text?: string;
  reasoning?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
}

/** Decides the response to call number `call` (from 0). Returning a ModelError fails the call. */
export type SimScript = (request: ModelRequest, call: number) => SimReply | ModelError;

export interface SimModelOptions {
  /** Defaults to `sim/demo`. */
  handle?: string;
  /** A function, or a list of replies used in order (the demo behaviour once it runs out). */
  script?: SimScript | readonly SimReply[];
  contextWindow?: number;
  /** Fails chosen calls: the fault plans of a simulation hook in here. */
  fault?: (call: number) => ModelErrorKind | undefined;
  /** Fails calls at random, from a seed: each call fails with `rate`, with one of `kinds`. */
  randomFaults?: { seed: number; rate: number; kinds: readonly ModelErrorKind[] };
  /** With a clock, each call takes this long in simulated time. */
  latency?: { clock: Clock; ms: number };
  /**
   * Whether `requests` keeps every request (the default, for tests). A server or a benchmark
   * passes `false`: each request holds the whole history, so keeping them all grows with the
   * square of a conversation's length.
   */
  remember?: boolean;
}

/** A `sim` model that also remembers what it was asked, for tests to inspect. */
export interface SimModel extends ModelAdapter {
  /** Every request so far, in order; empty when created with `remember: false`. */
  readonly requests: ModelRequest[];
}

/**
 * The `sim` provider: a deterministic, scripted model. Given the same requests it gives the same
 * responses, so tests and simulations replay exactly. Without a script it runs a small demo
 * that uses memory tools, so a new user sees the loop work without any key.
 */
export function createSimModel(options: SimModelOptions = {}): SimModel {
  const requests: ModelRequest[] = [];
  const remember = options.remember ?? true;
  let calls = 0;
  const script = toScript(options.script);
  const fault = options.fault ?? seededFaults(options.randomFaults);
  return {
    handle: options.handle ?? "sim/demo",
    contextWindow: options.contextWindow ?? 128_000,
    requests,
    async generate(request, onDelta) {
      const call = calls;
      calls += 1;
      if (remember) requests.push(request);
      if (options.latency) await options.latency.clock.sleep(options.latency.ms, request.signal);
      if (request.signal?.aborted) throw new ModelError("timeout", "the request was aborted");
      const kind = fault?.(call);
      if (kind) {
        throw new ModelError(
          kind,
          `sim: injected ${kind}`,
          kind === "rate_limit" ? 1000 : undefined,
        );
      }
      const reply = script(request, call);
      if (reply instanceof ModelError) throw reply;
      return respond(request, reply, call, onDelta);
    },
  };
}

function seededFaults(plan: SimModelOptions["randomFaults"]): SimModelOptions["fault"] {
  if (!plan || plan.kinds.length === 0) return undefined;
  const random = seededRandom(plan.seed);
  return () => {
    const roll = random.next();
    if (roll >= plan.rate) return undefined;
    return plan.kinds[Math.floor((roll / plan.rate) * plan.kinds.length)];
  };
}

function toScript(script: SimModelOptions["script"]): SimScript {
  if (typeof script === "function") return script;
  const replies = script ?? [];
  return (request, call) => replies[call] ?? demoReply(request);
}

function respond(
  request: ModelRequest,
  reply: SimReply,
  call: number,
  onDelta?: (delta: ModelDelta) => void,
): ModelResponse {
  const allowCalls = request.toolChoice !== "none" && request.tools.length > 0;
  const toolCalls = (allowCalls ? (reply.toolCalls ?? []) : []).map((toolCall, i) => ({
    id: `call-sim-${call}-${i}`,
    name: toolCall.name,
    arguments: JSON.stringify(toolCall.args),
  }));
  const text = reply.text ?? "";
  const reasoning = reply.reasoning ?? "";
  if (onDelta) {
    if (reasoning) onDelta({ type: "reasoning", text: reasoning });
    for (const piece of text.match(/\S+\s*/g) ?? []) onDelta({ type: "text", text: piece });
    toolCalls.forEach((toolCall, index) => {
      const half = Math.ceil(toolCall.arguments.length / 2);
      onDelta({
        type: "tool_call",
        index,
        id: toolCall.id,
        name: toolCall.name,
        argumentsDelta: toolCall.arguments.slice(0, half),
      });
      onDelta({ type: "tool_call", index, argumentsDelta: toolCall.arguments.slice(half) });
    });
  }
  const inputTokens = Math.ceil(
    (request.system.length + JSON.stringify(request.messages).length) / 4,
  );
  const outputTokens = Math.ceil(
    (text.length + reasoning.length + JSON.stringify(toolCalls).length) / 4,
  );
  return {
    text,
    reasoning,
    toolCalls,
    usage: { inputTokens, outputTokens },
    finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
  };
}
