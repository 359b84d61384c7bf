import type { TextStreamPart, ToolSet } from "ai";
import type {
  FinishReason,
  ModelDelta,
  ModelResponse,
  ModelToolCall,
  ModelUsage,
} from "./model.js";

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  "content-filter": "content_filter",
  "tool-calls": "tool_calls",
};

interface CallInProgress {
  call: ModelToolCall;
  index: number;
}

/**
 * Folds the AI SDK's stream parts of one model call into a `ModelResponse`, forwarding each
 * piece as a `ModelDelta` as it arrives. Tool-call arguments are kept as the exact text the
 * model streamed; tool calls are numbered (`index`) in the order they started. One per call.
 */
export class ResponseBuilder {
  #text = "";
  #reasoning = "";
  #signature: string | undefined;
  #calls = new Map<string, CallInProgress>();
  #usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  #finishReason: FinishReason = "other";
  #keptFinishReason: FinishReason | undefined;

  constructor(private readonly onDelta: ((delta: ModelDelta) => void) | undefined) {}

  add(part: TextStreamPart<ToolSet>): void {
    switch (part.type) {
      case "text-delta":
        this.#text += part.text;
        this.onDelta?.({ type: "text", text: part.text });
        break;
      case "reasoning-delta":
      case "reasoning-end": {
        const signature = part.providerMetadata?.anthropic?.signature;
        if (typeof signature === "string" && signature !== "") this.#signature = signature;
        if (part.type === "reasoning-end" || part.text === "") break;
        this.#reasoning += part.text;
        this.onDelta?.({ type: "reasoning", text: part.text });
        break;
      }
      case "tool-input-start":
        if (!part.providerExecuted) this.#start(part.id, part.toolName, "");
        break;
      case "tool-input-delta":
        this.#append(part.id, part.delta);
        break;
      case "tool-call":
        if (part.providerExecuted) break;
        this.#finishCall(part.toolCallId, part.toolName, part.input);
        break;
      case "finish":
        this.#usage = {
          inputTokens: part.totalUsage.inputTokens ?? 0,
          outputTokens: part.totalUsage.outputTokens ?? 0,
          ...cacheTokens(part.totalUsage.inputTokenDetails),
        };
        this.#finishReason = FINISH_REASONS[part.finishReason] ?? "other";
        break;
    }
  }

  /** Keeps the finish reason the model gave; the SDK reports `error` for the violation. */
  toolChoiceIgnored(finishReason: string): void {
    this.#keptFinishReason = FINISH_REASONS[finishReason] ?? "other";
  }

  build(): ModelResponse {
    const toolCalls = [...this.#calls.values()].map(({ call }) => call);
    // Some servers (Ollama among them) end a tool-calling turn with `stop`.
    const given = this.#keptFinishReason ?? this.#finishReason;
    const finishReason = toolCalls.length > 0 && given === "stop" ? "tool_calls" : given;
    return {
      text: this.#text,
      reasoning: this.#reasoning,
      ...(this.#signature !== undefined &&
        this.#reasoning !== "" && {
          reasoningSignature: this.#signature,
        }),
      toolCalls,
      usage: this.#usage,
      finishReason,
    };
  }

  #start(id: string, name: string, args: string): void {
    const index = this.#calls.size;
    this.#calls.set(id, { call: { id, name, arguments: args }, index });
    this.onDelta?.({ type: "tool_call", index, id, name, argumentsDelta: args });
  }

  #append(id: string, text: string): void {
    const entry = this.#calls.get(id);
    if (!entry || text === "") return;
    entry.call.arguments += text;
    this.onDelta?.({ type: "tool_call", index: entry.index, argumentsDelta: text });
  }

  /** A finished call the stream announced without (or with empty) argument deltas. */
  #finishCall(id: string, name: string, input: unknown): void {
    const entry = this.#calls.get(id);
    if (entry && entry.call.arguments !== "") return;
    // Invalid JSON comes back as the raw string; parsed input is re-serialised.
    const text = typeof input === "string" ? input : JSON.stringify(input ?? {});
    if (!entry) this.#start(id, name, text);
    else this.#append(id, text);
  }
}

/** The prompt tokens a provider read from or wrote to its cache, where it reports them. */
function cacheTokens(
  details: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined } = {},
): Pick<ModelUsage, "cachedInputTokens" | "cacheWriteInputTokens"> {
  const { cacheReadTokens: read, cacheWriteTokens: write } = details;
  return {
    ...(read !== undefined && read > 0 && { cachedInputTokens: read }),
    ...(write !== undefined && write > 0 && { cacheWriteInputTokens: write }),
  };
}
