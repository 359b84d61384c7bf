import { z } from "zod";
import { ClientTool } from "./client-tool.js";
import { ApprovalDecision, StopReason, ToolStatus } from "./messages.js";

/**
 * The run journal: what the loop decided at each committed step of a run, and what it was
 * given from outside (the model's response, a tool's result, a human's decisions). It is
 * written in the same transaction as the step it describes, one entry per commit, so a replay
 * (`agent/replay.ts`) can drive today's decide/apply over yesterday's inputs and find the
 * first step where they decide differently. Nothing in it is read by the live loop.
 */

/** A step the loop decided (the `Step` union of `agent/decide.ts`, as data). */
export const JournalStep = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("call_model"), final: z.boolean() }),
  z.object({ kind: z.literal("run_tool"), index: z.int().min(0) }),
  z.object({ kind: z.literal("reject_tool"), index: z.int().min(0), reason: z.string() }),
  z.object({ kind: z.literal("request_approval"), index: z.int().min(0) }),
  z.object({ kind: z.literal("ask_client"), index: z.int().min(0) }),
  z.object({ kind: z.literal("spawn_child"), index: z.int().min(0) }),
  z.object({ kind: z.literal("verify") }),
]);
export type JournalStep = z.infer<typeof JournalStep>;

/** A model's response as the loop received it (the `ModelResponse` of `llm/model.ts`). */
export const RecordedResponse = z.object({
  text: z.string(),
  reasoning: z.string(),
  reasoningSignature: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cachedInputTokens: z.number().optional(),
    cacheWriteInputTokens: z.number().optional(),
  }),
  finishReason: z.enum(["stop", "tool_calls", "length", "content_filter", "other"]),
  model: z.string().optional(),
  queueWaitMs: z.number().optional(),
});
export type RecordedResponse = z.infer<typeof RecordedResponse>;

/** A tool's result as the loop received it, and whether the tool really ran. */
export const RecordedToolResult = z.object({
  status: ToolStatus,
  output: z.string(),
  effects: z
    .object({ pauseUntilMs: z.number().optional(), reply: z.string().optional() })
    .optional(),
  executed: z.boolean(),
});
export type RecordedToolResult = z.infer<typeof RecordedToolResult>;

/** What a step was given from outside the state machine; `none` for the pure ones. */
export const StepInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("none") }),
  /** The step id the model call got (its messages' ids derive from it), and the offer. */
  z.object({
    type: z.literal("model"),
    step_id: z.string(),
    offered: z.array(z.string()),
    tool_choice: z.enum(["auto", "required"]),
    response: RecordedResponse,
  }),
  z.object({
    type: z.literal("model_failed"),
    step_id: z.string(),
    offered: z.array(z.string()),
    tool_choice: z.enum(["auto", "required"]),
    stop_reason: StopReason,
  }),
  z.object({ type: z.literal("tool"), result: RecordedToolResult }),
  z.object({ type: z.literal("spawned"), child_agent_id: z.string() }),
  z.object({ type: z.literal("refused"), error: z.string() }),
  z.object({ type: z.literal("verifier"), child_agent_id: z.string(), task: z.string() }),
]);
export type StepInput = z.infer<typeof StepInput>;

/** One entry: a turn's start, a step, or an input that arrived between steps. */
export const JournalEntry = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("begin"),
    approved_tools: z.array(z.string()),
    client_tools: z.array(ClientTool),
  }),
  z.object({ kind: z.literal("step"), step: JournalStep, input: StepInput }),
  /** A call of a tool that is not idempotent was marked started before it ran. */
  z.object({ kind: z.literal("started"), index: z.int().min(0) }),
  z.object({
    kind: z.literal("approvals"),
    decisions: z.array(ApprovalDecision),
    client_tools: z.array(ClientTool).nullable(),
  }),
  z.object({
    kind: z.literal("children"),
    results: z.array(
      z.object({ index: z.int(), status: z.enum(["success", "error"]), output: z.string() }),
    ),
  }),
  z.object({ kind: z.literal("cancel") }),
  /** The turn stopped with this reason (the last entry of a run, or of its part before a wait). */
  z.object({ kind: z.literal("finish"), stop_reason: StopReason }),
]);
export type JournalEntry = z.infer<typeof JournalEntry>;
