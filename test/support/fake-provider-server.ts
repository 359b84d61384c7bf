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

/** A successful reply: text and/or reasoning and/or tool calls, or a refusal. */
export interface ScriptedCompletion {
  type: "completion";
  text?: string;
  /** Reasoning text, in the wire format's own field (where it has one). */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** The model declines, marked as the provider marks a refusal (its field or finish reason). */
  refusal?: string;
  /**
   * Token counts. `promptTokens` counts every prompt token; `cachedTokens` and
   * `cacheWriteTokens` are the shares read from and written to the prompt cache.
   */
  usage?: {
    promptTokens: number;
    completionTokens: number;
    cachedTokens?: number;
    cacheWriteTokens?: number;
  };
  /** The wire format's own finish reason; each format derives a default. */
  finishReason?: string;
  /** Waits this long before answering, to let a client time out. */
  stallMs?: number;
}

/** A failed reply with an explicit HTTP status, its body in the wire format's error shape. */
export interface ScriptedError {
  type: "error";
  status: number;
  message?: string;
  code?: string;
  /** Extra response headers, e.g. `{ "retry-after": "2" }`. */
  headers?: Record<string, string>;
}

/**
 * The failures every provider has in some form. Each wire format renders the ones it really
 * sends exactly as that provider does (status, headers, body), and says which it cannot.
 */
export const FAILURE_KINDS = ["rate_limit", "server", "overloaded", "context_too_long"] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** A provider-shaped failure: `rate_limit` asks the client to wait `retryAfterS`. */
export interface ScriptedFailure {
  type: "failure";
  kind: FailureKind;
  retryAfterS?: number;
  /** Sent as an error event inside a 200 stream, where the provider does that. */
  midStream?: boolean;
}

export type ScriptedReply = ScriptedCompletion | ScriptedError | ScriptedFailure;

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body. */
  body: Record<string, unknown>;
}

/** Chooses each reply from the request, for callers whose requests arrive in no fixed order. */
export type ReplyFor = (request: RecordedRequest) => ScriptedReply;

/** One server-sent event; `event` is the SSE `event:` line, for formats that name events. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/** A complete HTTP answer. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/**
 * One provider's wire format, as the fake server speaks it. Reply shapes follow what the
 * provider's public API sends, checked against what its AI SDK package parses.
 */
export interface WireFormat {
  name: string;
  /** The prefix clients put before the routes (`/v1`, `/v1beta`); part of `baseUrl`. */
  basePath: string;
  /** Whether the path is a generate route, and if so whether the request asks to stream. */
  route(
    path: string,
    query: URLSearchParams,
    body: Record<string, unknown>,
  ): { stream: boolean } | undefined;
  json(reply: ScriptedCompletion, request: RecordedRequest): unknown;
  /** The stream's frames; a string frame is written verbatim (e.g. OpenAI's `[DONE]`). */
  stream(reply: ScriptedCompletion, request: RecordedRequest): (SseFrame | string)[];
  /** A plain HTTP error in the provider's error shape. */
  error(status: number, message: string, code: string | undefined): unknown;
  /** How the provider reports each failure; undefined where the provider never sends it. */
  failure(failure: ScriptedFailure): HttpReply | SseFrame | undefined;
}

export interface FakeProviderServer {
  /** The base URL a provider client takes (ends with the format's `basePath`). */
  baseUrl: string;
  /** The server's root, without the base path (Ollama's `OLLAMA_BASE_URL`). */
  rootUrl: string;
  requests: RecordedRequest[];
  /** The most requests that were being answered at the same moment. */
  readonly peakInFlight: number;
  /** Requests answered 429 for going past `maxInFlight`. */
  readonly rejected: number;
  close(): Promise<void>;
}

/** How the fake provider limits its callers, as a real one's rate limits would. */
export interface FakeProviderOptions {
  /** Requests past this many at once are answered 429 with `retry-after-ms`, unread. */
  maxInFlight?: number;
  /** The `retry-after-ms` of those 429s; default 20. */
  retryAfterMs?: number;
}

/**
 * Starts a local server on a free port speaking `wire`, both plain JSON and SSE streaming.
 * Each request consumes the next scripted reply; when none are left it answers 500 so a test
 * that calls the model too often fails loudly.
 */
export async function startFakeProvider(
  wire: WireFormat,
  script: ScriptedReply[] | ReplyFor,
  options: FakeProviderOptions = {},
): Promise<FakeProviderServer> {
  const queue = Array.isArray(script) ? [...script] : [];
  const next = Array.isArray(script) ? () => queue.shift() : script;
  const requests: RecordedRequest[] = [];
  const flight = { now: 0, peak: 0, rejected: 0 };
  const server = createServer((req, res) => {
    flight.now += 1;
    flight.peak = Math.max(flight.peak, flight.now);
    res.on("close", () => {
      flight.now -= 1;
    });
    if (options.maxInFlight !== undefined && flight.now > options.maxInFlight) {
      flight.rejected += 1;
      const message = `fake server: more than ${options.maxInFlight} requests at once`;
      sendJson(res, {
        status: 429,
        headers: { "retry-after-ms": String(options.retryAfterMs ?? 20) },
        body: wire.error(429, message, "rate_limit_exceeded"),
      });
      return;
    }
    void answer(wire, req, res, next, requests);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const rootUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${rootUrl}${wire.basePath}`,
    rootUrl,
    requests,
    get peakInFlight() {
      return flight.peak;
    },
    get rejected() {
      return flight.rejected;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function answer(
  wire: WireFormat,
  req: IncomingMessage,
  res: ServerResponse,
  next: (request: RecordedRequest) => ScriptedReply | undefined,
  requests: RecordedRequest[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? "/", "http://localhost");
  const text = Buffer.concat(chunks).toString("utf8");
  const body = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
  const route =
    req.method === "POST" ? wire.route(url.pathname, url.searchParams, body) : undefined;
  if (!route) {
    sendJson(res, {
      status: 404,
      body: wire.error(404, `no route ${req.method} ${url.pathname}`, undefined),
    });
    return;
  }
  const request = { method: req.method ?? "POST", path: url.pathname, headers: req.headers, body };
  requests.push(request);
  const reply = next(request);
  if (!reply) {
    const message = "fake server: no scripted reply left";
    sendJson(res, { status: 500, body: wire.error(500, message, undefined) });
  } else if (reply.type === "error") {
    const message = reply.message ?? `scripted error ${reply.status}`;
    sendJson(res, {
      status: reply.status,
      body: wire.error(reply.status, message, reply.code),
      ...(reply.headers && { headers: reply.headers }),
    });
  } else if (reply.type === "failure") {
    sendFailure(wire, res, reply, route.stream);
  } else if (reply.stallMs !== undefined && (await stall(res, reply.stallMs))) {
    return;
  } else if (route.stream) {
    sendStream(res, wire.stream(reply, request));
  } else {
    sendJson(res, { status: 200, body: wire.json(reply, request) });
  }
}

/** A failure the format cannot send is a mistake in the test: say so in a loud 500. */
function sendFailure(
  wire: WireFormat,
  res: ServerResponse,
  reply: ScriptedFailure,
  stream: boolean,
) {
  const rendered = wire.failure(reply);
  const mistake = !rendered
    ? `${wire.name} does not send a ${reply.kind} failure`
    : !("status" in rendered) && !stream
      ? `${wire.name}: a mid-stream ${reply.kind} needs a streaming request`
      : undefined;
  if (mistake !== undefined || !rendered) {
    const message = `fake server: ${mistake}`;
    sendJson(res, { status: 500, body: wire.error(500, message, undefined) });
  } else if ("status" in rendered) {
    sendJson(res, rendered);
  } else {
    sendStream(res, [rendered]);
  }
}

/** Waits `ms` (without holding the process open); true if the client went away meanwhile. */
async function stall(res: ServerResponse, ms: number): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, ms).unref());
  return res.destroyed;
}

function sendJson(res: ServerResponse, reply: HttpReply): void {
  res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
  res.end(JSON.stringify(reply.body));
}

function sendStream(res: ServerResponse, frames: readonly (SseFrame | string)[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const frame of frames) {
    if (typeof frame === "string") res.write(`data: ${frame}\n\n`);
    else {
      const event = frame.event === undefined ? "" : `event: ${frame.event}\n`;
      res.write(`${event}data: ${JSON.stringify(frame.data)}\n\n`);
    }
  }
  res.end();
}

/** `text` cut into pieces of `size` characters, as a model streams it. */
export function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/** The argument pieces of a tool call as the fake streams them. */
export function fragmentsOf(call: ScriptedToolCall): string[] {
  return call.fragments ?? split(call.arguments, 8);
}

/** Scripted token counts, with the defaults every format uses. */
export function tokensOf(reply: ScriptedCompletion): {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
} {
  const { promptTokens = 10, completionTokens = 5 } = reply.usage ?? {};
  const { cachedTokens = 0, cacheWriteTokens = 0 } = reply.usage ?? {};
  return {
    input: promptTokens,
    output: completionTokens,
    cached: cachedTokens,
    cacheWrite: cacheWriteTokens,
  };
}
