import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the fake model makes. `arguments` is streamed in `fragments` if given. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
  /** How the arguments are split across stream chunks; default: pieces of 8 characters. */
  fragments?: string[];
}

/** A successful reply: text and/or reasoning and/or tool calls. */
export interface ScriptedCompletion {
  type: "completion";
  text?: string;
  /** Sent as `reasoning_content`, the field DeepSeek, vLLM and llama.cpp use. */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { promptTokens: number; completionTokens: number };
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** Waits this long before answering, to let a client time out. */
  stallMs?: number;
}

/** A failed reply: an HTTP status with an OpenAI-shaped error body. */
export interface ScriptedError {
  type: "error";
  status: number;
  message?: string;
  code?: string;
  /** Extra response headers, e.g. `{ "retry-after": "2" }`. */
  headers?: Record<string, string>;
}

export type ScriptedReply = ScriptedCompletion | ScriptedError;

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (the chat-completions request). */
  body: Record<string, unknown>;
}

export interface FakeOpenAiServer {
  /** Ends in `/v1`, ready for an OpenAI client's `baseURL`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The most requests that were being answered at the same moment. */
  readonly peakInFlight: number;
  close(): Promise<void>;
}

/** Chooses each reply from the request, for callers whose requests arrive in no fixed order. */
export type ReplyFor = (request: RecordedRequest) => ScriptedReply;

const MODEL = "fake-model";
const CREATED = 1_767_225_600;

/**
 * Starts a local server on a free port that speaks OpenAI chat completions, both plain JSON
 * and SSE streaming. Each request consumes the next scripted reply; when none are left it
 * answers 500 so a test that calls the model too often fails loudly.
 */
export async function startFakeOpenAiServer(
  script: ScriptedReply[] | ReplyFor,
): Promise<FakeOpenAiServer> {
  const queue = Array.isArray(script) ? [...script] : [];
  const next = Array.isArray(script) ? () => queue.shift() : script;
  const requests: RecordedRequest[] = [];
  const flight = { now: 0, peak: 0 };
  const server = createServer((req, res) => {
    flight.now += 1;
    flight.peak = Math.max(flight.peak, flight.now);
    res.on("close", () => {
      flight.now -= 1;
    });
    void handle(req, res, next, requests);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get peakInFlight() {
      return flight.peak;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  next: (request: RecordedRequest) => ScriptedReply | undefined,
  requests: RecordedRequest[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (req.method !== "POST" || path !== "/v1/chat/completions") {
    sendError(res, { type: "error", status: 404, message: `no route ${req.method} ${path}` });
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
  const request = { method: req.method, path, headers: req.headers, body };
  requests.push(request);
  const reply = next(request);
  if (!reply) {
    sendError(res, { type: "error", status: 500, message: "fake server: no scripted reply left" });
  } else if (reply.type === "error") {
    sendError(res, reply);
  } else if (reply.stallMs !== undefined && (await stall(res, reply.stallMs))) {
    return;
  } else if (body.stream === true) {
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    sendStream(res, reply, options?.include_usage === true);
  } else {
    sendJson(res, 200, completion(reply));
  }
}

/** Waits `ms` (without holding the process open); true if the client went away meanwhile. */
async function stall(res: ServerResponse, ms: number): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, ms).unref());
  return res.destroyed;
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

function sendError(res: ServerResponse, reply: ScriptedError): void {
  const error = {
    message: reply.message ?? `scripted error ${reply.status}`,
    type: "fake_error",
    code: reply.code ?? null,
  };
  sendJson(res, reply.status, { error }, reply.headers);
}

function finishReason(reply: ScriptedCompletion): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
}

function usage(reply: ScriptedCompletion) {
  const { promptTokens = 10, completionTokens = 5 } = reply.usage ?? {};
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

/** A non-streamed `chat.completion`. */
function completion(reply: ScriptedCompletion) {
  const toolCalls = reply.toolCalls?.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(reply.reasoning !== undefined && { reasoning_content: reply.reasoning }),
          ...(toolCalls && { tool_calls: toolCalls }),
        },
        finish_reason: finishReason(reply),
      },
    ],
    usage: usage(reply),
  };
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/**
 * A streamed reply as `chat.completion.chunk` frames: reasoning, then text in a few pieces,
 * then each tool call (a first chunk with id and name, later chunks with argument fragments),
 * a finish chunk, an optional usage chunk, and `[DONE]`.
 */
function sendStream(res: ServerResponse, reply: ScriptedCompletion, includeUsage: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion.chunk",
        created: CREATED,
        model: MODEL,
        choices,
        ...extra,
      })}\n\n`,
    );
  const delta = (value: Record<string, unknown>) =>
    frame([{ index: 0, delta: value, finish_reason: null }]);

  delta({ role: "assistant", content: "" });
  for (const piece of split(reply.reasoning ?? "", 6)) delta({ reasoning_content: piece });
  for (const piece of split(reply.text ?? "", 6)) delta({ content: piece });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    delta({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
    for (const fragment of call.fragments ?? split(call.arguments, 8)) {
      delta({ tool_calls: [{ index, function: { arguments: fragment } }] });
    }
  }
  frame([{ index: 0, delta: {}, finish_reason: finishReason(reply) }]);
  if (includeUsage) frame([], { usage: usage(reply) });
  res.end("data: [DONE]\n\n");
}
