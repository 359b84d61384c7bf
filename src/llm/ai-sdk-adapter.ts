import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  isStepCount,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  Output,
  type ModelMessage as SdkMessage,
  type SystemModelMessage,
  streamText,
  ToolChoiceViolationError,
  type ToolResultPart,
  type ToolSet,
} from "ai";
import { type Clock, systemClock } from "../core/clock.js";
import { ValidationError } from "../core/errors.js";
import { toModelError } from "./ai-sdk-errors.js";
import { ResponseBuilder } from "./ai-sdk-response.js";
import { contextWindowFor } from "./context-windows.js";
import {
  formatModelHandle,
  type ModelHandle,
  type ProviderName,
  parseModelHandle,
} from "./handle.js";
import type {
  ModelAdapter,
  ModelDelta,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelToolSpec,
} from "./model.js";
import { ModelError } from "./model-error.js";
import {
  checkProviderReady,
  type ProviderSettings,
  resolveProviderEndpoint,
} from "./provider-settings.js";
import { reasoningProviderOptions } from "./reasoning-options.js";

/** Options of `createAiSdkAdapter`. */
export interface AiSdkAdapterOptions {
  /** Overrides the context window from the table (for a local model with a known size). */
  contextWindow?: number;
  /** Where keys and URLs not in the settings come from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Resolves `retry-after` dates; defaults to the system clock. */
  clock?: Clock;
  /** Aborts one call after this long, reported as a `timeout` ModelError. */
  timeoutMs?: number;
}

/**
 * A `ModelAdapter` for a real provider, built on the AI SDK. Each `generate` is exactly one
 * model call: tools are offered without `execute`, so the SDK never runs a tool or a second
 * step, and its own retries are off because `withRetries` owns that policy.
 *
 * @throws ValidationError when the handle is bad, names `sim`, or its key/base URL is missing.
 */
export { contextWindowFor };

export function createAiSdkAdapter(
  handle: string,
  settings: ProviderSettings = {},
  options: AiSdkAdapterOptions = {},
): ModelAdapter {
  const parsed = parseModelHandle(handle);
  const env = options.env ?? process.env;
  if (parsed.provider === "sim") {
    const message = "the sim provider is not served by the AI SDK adapter; use createSimModel";
    throw new ValidationError(message, [{ path: "model", message }]);
  }
  const problem = checkProviderReady(parsed, settings, env);
  if (problem) throw new ValidationError(problem, [{ path: "model", message: problem }]);
  const model = createLanguageModel(parsed, settings, env);
  const clock = options.clock ?? systemClock;
  return {
    handle: formatModelHandle(parsed),
    contextWindow: options.contextWindow ?? contextWindowFor(parsed.model),
    generate: (request, onDelta) =>
      generate(model, request, onDelta, {
        clock,
        timeoutMs: options.timeoutMs,
        provider: parsed.provider,
      }),
  };
}

function createLanguageModel(
  { provider, model }: ModelHandle,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv,
): LanguageModel {
  // Pass what we resolved explicitly, so the SDK never falls back to reading process.env.
  const { apiKey, baseUrl: baseURL } = resolveProviderEndpoint(provider, settings, env);
  switch (provider) {
    case "openai":
      // The default `openai(model)` speaks the Responses API; we use chat completions so the
      // same wire format serves OpenAI, Ollama and every OpenAI-compatible server.
      return createOpenAI({ apiKey, baseURL }).chat(model);
    case "openai-responses":
      return createOpenAI({ apiKey, baseURL }).responses(model);
    case "anthropic":
      return createAnthropic({ apiKey, baseURL })(model);
    case "google":
      return createGoogle({ apiKey, baseURL })(model);
    case "ollama":
    case "openai-compatible":
      return createOpenAICompatible({
        name: provider,
        baseURL: baseURL ?? "",
        ...(apiKey !== undefined && { apiKey }),
        // Without it, streamed responses carry no token usage.
        includeUsage: true,
      })(model);
    case "sim":
      throw new Error("unreachable: sim is rejected before a language model is built");
  }
}

async function generate(
  model: LanguageModel,
  request: ModelRequest,
  onDelta: ((delta: ModelDelta) => void) | undefined,
  {
    clock,
    timeoutMs,
    provider,
  }: { clock: Clock; timeoutMs: number | undefined; provider: ProviderName },
): Promise<ModelResponse> {
  const hasTools = request.tools.length > 0;
  const providerOptions = reasoningProviderOptions(provider, request.reasoning);
  const builder = new ResponseBuilder(onDelta);
  try {
    // We always stream, even without `onDelta`: one code path, and only the stream carries
    // the exact argument text of each tool call (the SDK's tool-call parts hold parsed objects).
    const anthropic = provider === "anthropic";
    const messages = toSdkMessages(request.messages, { signedReasoning: anthropic });
    const tools = hasTools ? toSdkTools(request.tools) : undefined;
    const result = streamText({
      model,
      ...(anthropic
        ? withCacheBreakpoints(request.system, messages, tools)
        : { instructions: request.system, messages }),
      ...(tools && { tools, toolChoice: request.toolChoice }),
      ...(request.output && { output: outputMode(provider, request.output) }),
      ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
      ...(request.signal && { abortSignal: request.signal }),
      ...(timeoutMs !== undefined && { timeout: timeoutMs }),
      ...(providerOptions && { providerOptions }),
      maxRetries: 0,
      stopWhen: isStepCount(1),
      // Errors reach us as stream parts; the default handler would also log them to stderr.
      onError: () => {},
    });
    for await (const part of result.stream) {
      if (part.type === "error" && ToolChoiceViolationError.isInstance(part.error)) {
        // The model answered in text despite `toolChoice: "required"` (local models often
        // ignore it). That is still an answer: the loop decides what text-only means.
        builder.toolChoiceIgnored(part.error.finishReason);
        continue;
      }
      if (part.type === "error") throw part.error;
      // Our caller's signal is handled below; any other abort is the SDK's own timeout.
      if (part.type === "abort") {
        throw new ModelError("timeout", `model call timed out: ${part.reason ?? "aborted"}`);
      }
      builder.add(part);
    }
  } catch (error) {
    // A cancellation by our caller is not a model failure: surface the caller's own reason.
    if (request.signal?.aborted) throw request.signal.reason;
    throw toModelError(error, clock.now());
  }
  return refusedOrAnswer(builder.build());
}

/**
 * The provider's own structured-output mode: OpenAI's `json_schema` response format (chat and
 * Responses), Gemini's `responseJsonSchema`, Anthropic's `output_config.format` (a forced `json`
 * tool on older models). Ollama and other chat-completions servers take no schema: they get
 * `json_object`, JSON of any shape, and the schema is checked on the reply alone.
 */
function outputMode(provider: ProviderName, output: NonNullable<ModelRequest["output"]>) {
  if (provider === "ollama" || provider === "openai-compatible")
    return Output.json({ name: output.name });
  const schema = jsonSchema(output.schema as JSONSchema7);
  return Output.object({ schema, name: output.name });
}

const CACHE_HERE = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/**
 * Anthropic caches a prompt's prefix only up to the `cache_control` breakpoints it is given
 * (at most four). The request is built stable-first: tools, then the system prompt with core
 * memory, then the history, oldest first. Breakpoints go on the last tool, on the system prompt
 * and on the newest message, so the next call re-reads all three from the cache, and a change
 * of memory re-sends only what follows the tools.
 */
export function withCacheBreakpoints(
  system: string,
  messages: SdkMessage[],
  tools: ToolSet | undefined,
): { instructions: SystemModelMessage; messages: SdkMessage[] } {
  const lastTool = tools && Object.values(tools).at(-1);
  if (lastTool) lastTool.providerOptions = CACHE_HERE;
  const last = messages.at(-1);
  const marked = last ? [...messages.slice(0, -1), { ...last, providerOptions: CACHE_HERE }] : [];
  return {
    instructions: { role: "system", content: system, providerOptions: CACHE_HERE },
    messages: marked as SdkMessage[],
  };
}

/**
 * A refusal (finish reason `content_filter`, no tool call) is no answer for the loop to act
 * on, and asking again gets the same refusal: it becomes a terminal `refused` error that
 * carries whatever the provider said.
 */
function refusedOrAnswer(response: ModelResponse): ModelResponse {
  if (response.finishReason !== "content_filter" || response.toolCalls.length > 0) return response;
  const said = response.text.trim();
  const message = `the model refused to answer (content filter)${said === "" ? "" : `: ${said}`}`;
  throw new ModelError("refused", message);
}

/**
 * Our conversation in the SDK's message format. With `signedReasoning` (Anthropic), a step's
 * signed thinking goes back before its text and tool calls: Anthropic requires it when a
 * thinking model continues after its own tool call. Other providers never get it.
 */
export function toSdkMessages(
  messages: readonly ModelMessage[],
  options: { signedReasoning?: boolean } = {},
): SdkMessage[] {
  const out: SdkMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      out.push({ role: "user", content: message.content });
    } else if (message.role === "assistant") {
      const calls = message.toolCalls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.id,
        toolName: call.name,
        input: parseArguments(call.arguments),
      }));
      const text = message.content === "" ? [] : [{ type: "text" as const, text: message.content }];
      const thought = options.signedReasoning ? signedReasoning(message.reasoning) : [];
      // An empty assistant turn says nothing, and Anthropic rejects empty content outright.
      if (text.length + calls.length > 0)
        out.push({ role: "assistant", content: [...thought, ...text, ...calls] });
    } else {
      const result: ToolResultPart = {
        type: "tool-result",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: { type: "text", value: message.content },
      };
      // Results of one assistant turn travel together, as Anthropic and Gemini expect.
      const last = out.at(-1);
      if (last?.role === "tool") last.content.push(result);
      else out.push({ role: "tool", content: [result] });
    }
  }
  return out;
}

function signedReasoning(reasoning: { text: string; signature: string } | undefined) {
  if (!reasoning) return [];
  const { text, signature } = reasoning;
  return [{ type: "reasoning" as const, text, providerOptions: { anthropic: { signature } } }];
}

/**
 * The SDK wants tool-call input as a value. Arguments that are not JSON were already answered
 * with a tool error the model will read, so an empty object stands in for them here.
 */
function parseArguments(text: string): unknown {
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return {};
  }
}

/** Our tool specs as SDK tools: JSON Schema as given, no `execute`, no SDK-side validation. */
export function toSdkTools(specs: readonly ModelToolSpec[]): ToolSet {
  const tools: ToolSet = {};
  for (const spec of specs) {
    tools[spec.name] = {
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as JSONSchema7),
    };
  }
  return tools;
}
