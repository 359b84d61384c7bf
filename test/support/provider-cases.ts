import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { FailureKind, FakeProviderServer, WireFormat } from "./fake-provider-server.js";
import { anthropicWire } from "./wire/anthropic.js";
import { geminiWire } from "./wire/gemini.js";
import { ollamaWire, openAiChatWire } from "./wire/openai-chat.js";
import { openAiResponsesWire } from "./wire/openai-responses.js";

type Body = Record<string, unknown>;
type Item = Record<string, unknown>;

const list = (value: unknown): Item[] => (Array.isArray(value) ? (value as Item[]) : []);

/** One provider as the wire-format suite drives it: its fake, its handle, its settings. */
export interface ProviderCase {
  name: string;
  wire: WireFormat;
  handle: string;
  /** The environment that points the handle at the fake. */
  env(fake: FakeProviderServer): Record<string, string>;
  /** The AI SDK model on its own, to read the fake's non-streamed JSON. */
  sdkModel(fake: FakeProviderServer): LanguageModel;
  /** Failures this provider really sends, as HTTP errors. */
  failures: FailureKind[];
  /** Failures it also sends inside a 200 stream. */
  midStream: FailureKind[];
  /** Whether the provider marks refusals. */
  refuses: boolean;
  /** Whether the wire format carries the model's reasoning text at all. */
  streamsReasoning: boolean;
  /**
   * The tool results a request body carries back to the model, by the call id they answer
   * (by function name for Gemini, whose calls have no ids).
   */
  toolResults(body: Body): string[];
}

const openAiEnv = (fake: FakeProviderServer) => ({
  OPENAI_API_KEY: "sk-fake",
  OPENAI_BASE_URL: fake.baseUrl,
});

const chatToolResults = (body: Body) =>
  list(body.messages).flatMap((m) => (m.role === "tool" ? [String(m.tool_call_id)] : []));

const ALL: FailureKind[] = ["rate_limit", "server", "overloaded", "context_too_long"];

export const PROVIDER_CASES: ProviderCase[] = [
  {
    name: "OpenAI chat completions",
    wire: openAiChatWire,
    handle: "openai/gpt-4.1-mini",
    env: openAiEnv,
    sdkModel: (fake) => createOpenAI({ apiKey: "k", baseURL: fake.baseUrl }).chat("gpt-4.1-mini"),
    failures: ALL,
    midStream: [],
    refuses: true,
    // OpenAI's chat completions never return reasoning text (only its token count).
    streamsReasoning: false,
    toolResults: chatToolResults,
  },
  {
    name: "OpenAI Responses",
    wire: openAiResponsesWire,
    handle: "openai-responses/gpt-5-mini",
    env: openAiEnv,
    sdkModel: (fake) =>
      createOpenAI({ apiKey: "k", baseURL: fake.baseUrl }).responses("gpt-5-mini"),
    failures: ALL,
    midStream: ["server"],
    refuses: true,
    streamsReasoning: true,
    toolResults: (body) =>
      list(body.input).flatMap((i) =>
        i.type === "function_call_output" ? [String(i.call_id)] : [],
      ),
  },
  {
    name: "Anthropic Messages",
    wire: anthropicWire,
    handle: "anthropic/claude-sonnet-4-5",
    env: (fake) => ({ ANTHROPIC_API_KEY: "sk-ant-fake", ANTHROPIC_BASE_URL: fake.baseUrl }),
    sdkModel: (fake) =>
      createAnthropic({ apiKey: "k", baseURL: fake.baseUrl })("claude-sonnet-4-5"),
    failures: ALL,
    midStream: ["overloaded"],
    refuses: true,
    streamsReasoning: true,
    toolResults: (body) =>
      list(body.messages)
        .flatMap((m) => list(m.content))
        .flatMap((part) => (part.type === "tool_result" ? [String(part.tool_use_id)] : [])),
  },
  {
    name: "Google Gemini",
    wire: geminiWire,
    handle: "google/gemini-2.5-flash",
    env: (fake) => ({
      GOOGLE_GENERATIVE_AI_API_KEY: "g-fake",
      GOOGLE_GENERATIVE_AI_BASE_URL: fake.baseUrl,
    }),
    sdkModel: (fake) => createGoogle({ apiKey: "k", baseURL: fake.baseUrl })("gemini-2.5-flash"),
    failures: ALL,
    midStream: [],
    refuses: true,
    streamsReasoning: true,
    toolResults: (body) =>
      list(body.contents)
        .flatMap((c) => list(c.parts))
        .flatMap((part) => {
          const response = part.functionResponse as { name?: string } | undefined;
          return response ? [String(response.name)] : [];
        }),
  },
  {
    name: "Ollama",
    wire: ollamaWire,
    handle: "ollama/qwen3:8b",
    env: (fake) => ({ OLLAMA_BASE_URL: fake.rootUrl }),
    sdkModel: (fake) =>
      createOpenAICompatible({ name: "ollama", baseURL: fake.baseUrl })("qwen3:8b"),
    failures: ["server", "overloaded"],
    midStream: [],
    refuses: false,
    streamsReasoning: true,
    toolResults: chatToolResults,
  },
];
