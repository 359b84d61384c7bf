import type { z } from "zod";
import type { Clock } from "../core/clock.js";
import { safeParseTiered } from "../core/tiered-parse.js";
import type { PendingCall, SessionState } from "../records/session-state.js";
import type { ToolContext, ToolImplementation, ToolResult } from "../tools/tool.js";
import { failure } from "../tools/tool.js";
import { checkToolCall } from "../types/capabilities.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";

export interface ExecutedTool {
  result: ToolResult;
  /** Whether the tool really ran (a refused call did not). */
  executed: boolean;
}

/**
 * Runs one tool call after checking it again: the agent must be allowed the tool, the tool must
 * have been offered on this call, and the arguments must parse. A refused or failed call becomes
 * an error result for the model; this never throws for anything the model did.
 */
export async function executeTool(
  call: PendingCall,
  state: SessionState,
  caps: EffectiveCapabilities,
  tools: ReadonlyMap<string, ToolImplementation>,
  context: Omit<ToolContext, "signal">,
): Promise<ExecutedTool> {
  const checked = checkCall(call, state, caps, tools);
  if (!checked.ok) return { result: failure(checked.error), executed: false };
  return { result: await runWithTimeout(checked.tool, checked.args, context), executed: true };
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** A call that may run, with its parsed arguments; or why it may not. */
export type CheckedCall =
  | { ok: true; tool: ToolImplementation; args: unknown }
  | { ok: false; error: string };

/** The checks every call passes before it runs: allowed, offered now, known, arguments valid. */
export function checkCall(
  call: PendingCall,
  state: SessionState,
  caps: EffectiveCapabilities,
  tools: ReadonlyMap<string, ToolImplementation>,
): CheckedCall {
  const { name } = call.tool_call;
  const allowed = checkToolCall(caps, name);
  if (!allowed.allowed) return { ok: false, error: allowed.reason };
  if (!state.offered.includes(name))
    return { ok: false, error: `tool '${name}' may not be called now (tool rules)` };
  const tool = tools.get(name);
  if (!tool) return { ok: false, error: `tool '${name}' is not available on this server` };
  const args = parseArguments(call.tool_call.arguments, tool, caps.intent_required);
  return args.ok ? { ok: true, tool, args: args.value } : { ok: false, error: args.error };
}

function parseArguments(text: string, tool: ToolImplementation, intentRequired: boolean): Parsed {
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `the arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, error: "the arguments must be a JSON object" };
  }
  // Loop-level arguments are the loop's business, not the tool's.
  const { request_heartbeat: _heartbeat, intent, ...rest } = raw as Record<string, unknown>;
  if (intentRequired && (typeof intent !== "string" || intent.trim() === "")) {
    return {
      ok: false,
      error: "this agent must say why it calls a tool: add an 'intent' argument",
    };
  }
  const parsed = safeParseTiered(tool.declaration.parameters, rest);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`,
  );
  return { ok: false, error: `invalid arguments: ${problems.join("; ")}` };
}

/** Runs the tool, turning a throw or an overrun of its timeout into an error result. */
export async function runWithTimeout(
  tool: ToolImplementation,
  args: unknown,
  context: Omit<ToolContext, "signal">,
): Promise<ToolResult> {
  const controller = new AbortController();
  const timer = new AbortController();
  const timeout = timeoutAfter(context.clock, tool.timeoutMs, timer.signal).then(() => {
    controller.abort(new Error("timeout"));
    return failure(`tool '${tool.declaration.name}' timed out after ${tool.timeoutMs} ms`);
  });
  const run = tool
    .run(args as z.output<typeof tool.declaration.parameters>, {
      ...context,
      signal: controller.signal,
    })
    .catch((error: unknown) =>
      failure(`tool '${tool.declaration.name}' failed: ${describe(error)}`),
    );
  try {
    return await Promise.race([run, timeout]);
  } finally {
    timer.abort(TOOL_SETTLED);
  }
}

/**
 * Why a tool's timer is stopped when the tool ends first. `abort()` without a reason would make
 * a DOMException, stack trace and all, for every tool call (0.15 ms a turn in the bench).
 */
const TOOL_SETTLED = Symbol("tool settled");

/** Resolves after `ms`, or never if `cancel` aborts first. */
function timeoutAfter(clock: Clock, ms: number, cancel: AbortSignal): Promise<void> {
  return clock.sleep(ms, cancel).catch(() => new Promise<void>(() => {}));
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
