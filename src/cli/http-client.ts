import type { Command } from "commander";
import { z } from "zod";

/** Where the CLI finds a running server, from flags first, then the environment. */
export interface ClientOptions {
  url?: string;
  token?: string;
}

/** The body of a server's error answer (see src/server/error-response.ts). */
const ErrorBody = z.looseObject({
  code: z.string().optional(),
  message: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  known: z.array(z.string()).optional(),
});

/** One SSE chunk of a turn: a Letta message, a stop reason or usage statistics. */
export const StreamChunk = z.looseObject({
  message_type: z.string(),
  id: z.string().optional(),
});
export type StreamChunk = z.infer<typeof StreamChunk>;

/** A failure the CLI reports to its user as is: one readable message, no stack trace. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** One approval answer, as Letta's clients send it. */
export interface ApprovalAnswer {
  tool_call_id: string;
  approve: boolean;
  reason?: string;
}

export const DEFAULT_URL = "http://127.0.0.1:8283";

/** A small client for the Holdfast REST + SSE API over plain `fetch`. */
export interface HttpClient {
  readonly baseUrl: string;
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Sends a user message with token streaming and yields the turn's chunks as they arrive. */
  streamMessages(
    agentId: string,
    content: string,
    signal?: AbortSignal,
  ): AsyncGenerator<StreamChunk>;
  /** Answers pending approvals and yields the rest of the turn's chunks. */
  streamApprovals(
    agentId: string,
    approvals: readonly ApprovalAnswer[],
    signal?: AbortSignal,
  ): AsyncGenerator<StreamChunk>;
  /** Any SSE route: yields its chunks as they arrive. */
  stream(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): AsyncGenerator<StreamChunk>;
}

/** Adds `--url` and `--token` to a command. */
export function withServerOptions(command: Command): Command {
  return command
    .option("--url <url>", `server URL (env HOLDFAST_URL; default ${DEFAULT_URL})`)
    .option("--token <token>", "bearer token (env HOLDFAST_TOKEN)");
}

export function createClient(options: ClientOptions = {}): HttpClient {
  const baseUrl = (options.url ?? process.env.HOLDFAST_URL ?? DEFAULT_URL).replace(/\/+$/, "");
  const token = options.token ?? process.env.HOLDFAST_TOKEN;

  async function send(method: string, path: string, body: unknown, signal?: AbortSignal) {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token) headers.authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw connectionError(baseUrl, error);
    }
    if (!response.ok) throw await responseError(method, path, response);
    return response;
  }

  async function* streamOf(method: string, path: string, body: unknown, signal?: AbortSignal) {
    const response = await send(method, path, body, signal);
    if (!response.body) throw new CliError("the server sent an empty stream");
    yield* readSse(response.body);
  }

  const stream = (agentId: string, messages: unknown[], signal?: AbortSignal) =>
    streamOf(
      "POST",
      `/v1/agents/${segment(agentId)}/messages`,
      { messages, streaming: true, stream_tokens: true },
      signal,
    );

  return {
    baseUrl,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await send(method, path, body);
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    streamMessages: (agentId, content, signal) =>
      stream(agentId, [{ role: "user", content }], signal),
    streamApprovals: (agentId, approvals, signal) =>
      stream(
        agentId,
        [{ type: "approval", approvals: approvals.map((a) => ({ type: "approval", ...a })) }],
        signal,
      ),
    stream: streamOf,
  };
}

/** Encodes one path segment (an id or a name). */
export const segment = (value: string) => encodeURIComponent(value);

/**
 * Parses a Letta SSE body: frames end with a blank line and may arrive split across network
 * chunks; `:` lines are comments; `event: error` throws with its message; other named events
 * are dropped, as Letta's client does; `data: [DONE]` ends the stream.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamChunk> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true }).replace(/\r\n?/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame === "done") return;
      if (frame) yield frame;
      end = buffer.indexOf("\n\n");
    }
  }
  const last = parseFrame(buffer + decoder.decode());
  if (last && last !== "done") yield last;
}

function parseFrame(text: string): StreamChunk | "done" | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return undefined;
  const payload = data.join("\n");
  if (payload === "[DONE]") return "done";
  if (event === "error") throw new CliError(errorMessageOf(payload));
  if (event !== undefined && event !== "message") return undefined;
  const parsed = StreamChunk.safeParse(safeJson(payload));
  if (!parsed.success) throw new CliError(`the server sent a malformed chunk: ${payload}`);
  return parsed.data;
}

function errorMessageOf(payload: string): string {
  const parsed = z.object({ message: z.string() }).safeParse(safeJson(payload));
  return parsed.success ? parsed.data.message : payload;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type NetError = Error & { code?: string; errors?: { code?: string }[] };

function connectionError(baseUrl: string, error: unknown): Error {
  if (error instanceof Error && error.name === "AbortError") return error;
  const cause = error instanceof Error ? (error.cause as NetError | undefined) : undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new CliError(`no Holdfast server at ${baseUrl}: start one with \`npm start\``);
  const why = cause instanceof Error ? cause.message : String(error);
  return new CliError(`cannot reach the Holdfast server at ${baseUrl}: ${why}`);
}

async function responseError(method: string, path: string, response: Response): Promise<Error> {
  const text = await response.text();
  const parsed = ErrorBody.safeParse(safeJson(text));
  const where = `${method} ${path}: ${response.status}`;
  if (!parsed.success)
    return new CliError(`${where} ${text.trim() || response.statusText}`, response.status);
  const { code, message, errors, known } = parsed.data;
  const lines = [`${message} (${response.status}${code ? ` ${code}` : ""})`];
  for (const field of errors ?? []) lines.push(`  ${field.path || "(body)"}: ${field.message}`);
  if (known && known.length > 0) lines.push(`  known: ${known.join(", ")}`);
  return new CliError(lines.join("\n"), response.status, code);
}

/**
 * Finds an agent by id or by name. Anything shaped like an id is taken as one; a name must
 * match exactly one agent.
 */
export async function resolveAgentId(client: HttpClient, idOrName: string): Promise<string> {
  if (/^agent-[0-9a-z-]+$/i.test(idOrName)) return idOrName;
  const found = await client.request<{ id: string }[]>(
    "GET",
    `/v1/agents/?name=${encodeURIComponent(idOrName)}&limit=10`,
  );
  const [first, ...rest] = found;
  if (!first) throw new CliError(`no agent is named '${idOrName}'`);
  if (rest.length > 0)
    throw new CliError(
      `${found.length} agents are named '${idOrName}': use an id (${found.map((a) => a.id).join(", ")})`,
    );
  return first.id;
}

/** Runs a command's action; a CliError is printed as `holdfast: message` and exits 1. */
export async function runOrExit(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    console.error(`holdfast: ${error.message}`);
    process.exit(1);
  }
}
