/**
 * The boundary between the agent loop and any language model. Adapters (AI SDK providers, the
 * `sim` model) implement `ModelAdapter`; the loop knows nothing else about models.
 */

/** A tool as offered to a model: its name, what it does, and its arguments as JSON Schema. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call the model made. `arguments` is the raw JSON text, exactly as the model sent it. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The conversation as a model sees it. The system prompt travels separately. */
export type ModelMessage =
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string;
      toolCalls: ModelToolCall[];
      /** The step's signed reasoning, sent back where the provider requires it (Anthropic). */
      reasoning?: { text: string; signature: string };
    }
  | { role: "tool"; toolCallId: string; toolName: string; content: string };

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  /** The tools offered; empty means the model may not call any. */
  tools: ModelToolSpec[];
  maxOutputTokens?: number;
  /** `required` forces a tool call (memgpt agents must reply through send_message). */
  toolChoice?: "auto" | "required" | "none";
  /** Reasoning to ask for; absent sends nothing, leaving the provider's default. */
  reasoning?: ReasoningRequest;
  /**
   * A JSON reply matching `schema` is wanted: sent as the provider's structured-output mode
   * where it has one; `withStructuredOutput` validates the reply whatever the provider did.
   */
  output?: { name: string; schema: Record<string, unknown> };
  /** Who is calling (the agent id): a provider's rate limiter queues callers fairly by it. */
  caller?: string;
  signal?: AbortSignal;
}

/**
 * Reasoning asked of the model. Each adapter sends it in its provider's terms: Anthropic's
 * `thinking`, OpenAI's `reasoning` effort and summary, Gemini's `thinkingConfig`.
 */
export interface ReasoningRequest {
  enabled: boolean;
  /** The most tokens spent reasoning per call, where the provider takes a budget. */
  budgetTokens?: number;
  /** OpenAI's effort; derived from `budgetTokens` when absent. */
  effort?: "minimal" | "low" | "medium" | "high";
}

export interface ModelUsage {
  /** Every prompt token, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache, where it reports them. */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache (Anthropic bills them). */
  cacheWriteInputTokens?: number;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

export interface ModelResponse {
  text: string;
  /** The model's visible reasoning, if the provider returns it; else "". */
  reasoning: string;
  /** The provider's signature of that reasoning (Anthropic thinking), to send back with it. */
  reasoningSignature?: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: FinishReason;
  /** The handle that answered, when it is not the adapter's own (a fallback sets it). */
  model?: string;
  /** The handles that failed with an outage before `model` answered, in order. */
  fallbacks?: ModelFallback[];
  /** How long the call queued behind the provider's rate limits before it was sent. */
  queueWaitMs?: number;
}

/** A handle skipped for an outage-class failure before a fallback answered. */
export interface ModelFallback {
  handle: string;
  kind: string;
  message: string;
}

/** A piece of a response as it streams. Tool-call deltas of one call share `index`. */
export type ModelDelta =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; id?: string; name?: string; argumentsDelta: string };

export interface ModelAdapter {
  /** The handle it serves, `provider/model`. */
  readonly handle: string;
  /** How many tokens a request (prompt + output) may hold. */
  readonly contextWindow: number;
  /**
   * Produces one response. With `onDelta`, streams pieces as they arrive (where the provider
   * supports it) and still resolves with the whole response. Throws `ModelError`.
   */
  generate(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResponse>;
}
