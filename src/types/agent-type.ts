import { z } from "zod";
import { isProviderName, PROVIDERS } from "../llm/handle.js";
import { checkOutputSchema } from "../llm/json-schema.js";
import { CoreBlockTemplate } from "../records/core-block.js";
import { ToolName } from "../tools/tool-declaration.js";
import {
  ApprovalPolicy,
  ControlFlow,
  MemoryDepth,
  ModelHandle,
  PolicyProfile,
  ReplyVia,
  ToolAccess,
} from "./axes.js";
import { EmbeddingHandle } from "./embedding-handle.js";

/**
 * A model handle whose provider Holdfast knows (`openai/…`, `anthropic/…`, `sim/…`): what a
 * config file's types and an agent's fallbacks are checked with, so a typo is refused up front.
 */
export const KnownModelHandle = ModelHandle.superRefine((handle, ctx) => {
  const provider = handle.slice(0, handle.indexOf("/"));
  // A malformed handle already has its issue; the provider is checked only on a well-formed one.
  if (ModelHandle.safeParse(handle).success && !isProviderName(provider))
    ctx.addIssue({
      code: "custom",
      message: `unknown model provider '${provider}'; known providers: ${PROVIDERS.join(", ")}`,
    });
});

/** Fallback model handles: at most four, each named once. */
export const ModelFallbacks = z
  .array(KnownModelHandle)
  .max(4)
  .refine((handles) => new Set(handles).size === handles.length, {
    message: "a fallback handle is named twice",
  });

/**
 * Whether the model is asked to reason before it answers, and how much. `budget_tokens` is
 * Anthropic's thinking budget and Gemini's `thinkingBudget`; OpenAI takes an `effort` instead
 * (given, or derived from the budget). Tokens spent reasoning count as output tokens.
 */
export const ReasoningSettings = z.strictObject({
  enabled: z.boolean(),
  /** The most tokens spent reasoning per call; null leaves it to the provider. */
  budget_tokens: z.int().min(1024).max(128_000).nullable().default(null),
  /** OpenAI's reasoning effort; null derives it from `budget_tokens` (medium without one). */
  effort: z.enum(["minimal", "low", "medium", "high"]).nullable().default(null),
});
export type ReasoningSettings = z.infer<typeof ReasoningSettings>;

/**
 * A JSON Schema the reply of a `single_shot` agent must match (`scoring` → `{score, reasons}`).
 * Sent as the provider's structured-output mode where it has one; the reply is validated in
 * any case, with one repair call when it does not match. The root must be an object.
 */
export const StructuredOutput = z.strictObject({
  /** The schema's name, as OpenAI's `json_schema.name` wants one. */
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, "a schema name is 1-64 letters, digits, _ or -")
    .default("response"),
  schema: z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
    for (const { pointer, message } of checkOutputSchema(schema)) {
      const path = pointer.split("/").slice(1).map(unescapePointer);
      ctx.addIssue({ code: "custom", message, path });
    }
  }),
});
export type StructuredOutput = z.infer<typeof StructuredOutput>;

const unescapePointer = (part: string) => part.replaceAll("~1", "/").replaceAll("~0", "~");

export const TypeName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, "a type name is 1-64 lowercase letters, digits, _ or -");

export { CoreBlockTemplate };

export const ToolSettings = z.strictObject({
  /** Named packs whose tools the type is offered. */
  packs: z.array(z.string().min(1)),
  /** Single tools offered besides the packs. */
  include: z.array(ToolName),
  /** If set, only these tools may be offered; `null` allows any tool from packs and include. */
  allow: z.array(ToolName).nullable(),
  /** Tools never offered, whatever else says so. Deny beats allow. */
  deny: z.array(ToolName),
  access: ToolAccess,
  approval: ApprovalPolicy,
});
export type ToolSettings = z.infer<typeof ToolSettings>;

/**
 * What an agent remembers. `depth`: `stateless` — nothing from earlier turns, no core memory;
 * `session` — the history of the current session only; `persistent` — all history (the oldest
 * summarised once it outgrows the context window); `learning` — as persistent, plus recall of
 * the most relevant archival passages and past messages before each turn (within
 * `recall_tokens`), and a lesson written to archival memory when a session ends.
 */
export const MemorySettings = z.strictObject({
  depth: MemoryDepth,
  blocks: z.array(CoreBlockTemplate),
  archival: z.boolean(),
  conversation_search: z.boolean(),
  /**
   * A session ends when the client ends it, or when the agent's next message comes after this
   * many idle minutes; null: only the client ends it.
   */
  session_idle_minutes: z.int().min(1).max(525_600).nullable().default(60),
  /** `learning`: the most tokens recalled memories may take in the context each turn. */
  recall_tokens: z.int().min(0).max(100_000).default(1000),
  /**
   * The embedding model passages and messages are embedded with, for hybrid (BM25 + vector)
   * search; null searches full-text only.
   */
  embedding: EmbeddingHandle.nullable().optional(),
});
export type MemorySettings = z.infer<typeof MemorySettings>;

export const Limits = z.strictObject({
  max_iterations: z.int().min(1).max(1000),
  max_tool_calls_per_turn: z.int().min(1).max(10_000),
  max_tokens_per_turn: z.int().min(1).max(10_000_000),
  max_spawn_depth: z.int().min(0).max(16),
});
export type Limits = z.infer<typeof Limits>;

export const Isolation = z.strictObject({
  /** Only read tools, whatever the access level says. */
  read_only: z.boolean(),
  /** File tools may not reach outside this directory; `null` means the server's default. */
  workspace_root: z.string().min(1).nullable(),
  /**
   * Whether shell commands may use the network. Off, a sandboxed command has only its own
   * loopback; an agent may turn it off, never on past its type.
   */
  network: z.boolean(),
});
export type Isolation = z.infer<typeof Isolation>;

/**
 * The verifier gate (the ssenrah seed's `orchestrator.verify()`): before the final answer is
 * returned, an agent of type `with` checks it against the task; on a fail the agent gets the
 * findings and another round, up to `max_rounds` checks.
 */
export const VerifyGate = z.strictObject({
  with: TypeName,
  max_rounds: z.int().min(1).max(10),
});
export type VerifyGate = z.infer<typeof VerifyGate>;

/**
 * An agent type, fully resolved: every axis has a value. Types are data, never subclasses;
 * one loop runs every type and reads only this configuration.
 *
 * @example
 * registry.get("memgpt_agent")?.limits.max_iterations // 5
 */
export const AgentType = z.strictObject({
  name: TypeName,
  description: z.string(),
  control_flow: ControlFlow,
  /** Whether the model sees the earlier messages of the conversation. */
  include_history: z.boolean(),
  /** The default model of agents of this type; `null` leaves it to the server's default. */
  model: ModelHandle.nullable(),
  /**
   * Handles tried in order when the model is down (5xx, overloaded, timeouts, rate limits after
   * its own retries); never on a failure the request caused. Empty: no fallback.
   */
  model_fallbacks: ModelFallbacks.default([]),
  /** Reasoning asked of the model; null sends nothing, leaving each provider's default. */
  reasoning: ReasoningSettings.nullable().default(null),
  /** The JSON a `single_shot` type's reply must be; null for free text. */
  structured_output: StructuredOutput.nullable().default(null),
  /** The system prompt template the prompt builder renders for every model call. */
  system_prompt: z.string(),
  reply_via: ReplyVia,
  tools: ToolSettings,
  memory: MemorySettings,
  limits: Limits,
  /** memgpt-style heartbeats: a tool call may ask for another step, and the agent may sleep. */
  heartbeats: z.boolean(),
  isolation: Isolation,
  policy_profile: PolicyProfile,
  /** Every tool call must carry an `intent` argument saying why it is made. */
  intent_required: z.boolean(),
  /** At the iteration limit, one more model call without tools gives a final answer. */
  final_answer_at_limit: z.boolean(),
  /** The verifier gate, or null for none. */
  verify: VerifyGate.nullable(),
});
export type AgentType = z.infer<typeof AgentType>;
